import { MAX_COMMANDS, MAX_OPERATIONS } from './analysis-limits.js';
import type { FileOperation, SimpleCommand } from './shell-analysis.js';

/**
 * Thrown anywhere inside an analysis when the command cannot be analyzed to the end (a nested
 * script that does not parse, too deep a nesting, too many operations); the analyzer turns it
 * into `shell_unparsable`, so the hook fails closed.
 */
export class UnanalyzableCommand extends Error {}

/**
 * A bound of the whole analysis was reached (time, syntax nodes, operations, commands): nothing
 * may turn it into anything but a refusal, not even a script file that could not be followed.
 */
export class AnalysisLimitReached extends UnanalyzableCommand {}

/**
 * What one analysis found, in the order found. The same operation reached twice (a path named
 * by two commands, a heredoc parsed by two shells) is kept once, with the first explanation.
 */
export class OperationLog {
  readonly operations: FileOperation[] = [];
  readonly commands: SimpleCommand[] = [];
  private readonly seen = new Set<string>();

  add(operation: FileOperation): void {
    const key = `${operation.kind}\u0000${operation.path ?? ''}\u0000${operation.realPath ?? ''}\u0000${operation.recursive === true}\u0000${operation.skips ?? ''}\u0000${operation.dynamic?.reason ?? ''}\u0000${operation.dynamic?.text ?? ''}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    if (this.operations.length >= MAX_OPERATIONS) throw new AnalysisLimitReached(`the command performs more than ${MAX_OPERATIONS} file operations`);
    this.operations.push(operation);
  }

  addCommand(command: SimpleCommand): void {
    if (this.commands.length >= MAX_COMMANDS) throw new AnalysisLimitReached(`the command line runs more than ${MAX_COMMANDS} commands`);
    this.commands.push(command);
  }
}
