import { ANALYSIS_TIME_BUDGET_MS, MAX_COMMAND_BYTES, MAX_SCRIPT_DEPTH, MAX_SYNTAX_NODES } from './analysis-limits.js';
import type { BashParser } from './bash-parser.js';
import { createFilesystemProbe, type FilesystemProbe } from './filesystem-probe.js';
import { AnalysisLimitReached, OperationLog, UnanalyzableCommand } from './operation-log.js';
import type { ShellState } from './shell-state.js';
import { ScriptWalker } from './script-walker.js';
import { monotonicMs } from '../../monotonic-clock.js';

/**
 * One call of `analyze`: the parser, what was found so far, the filesystem lookups made, and
 * the budgets shared by the command line and every script nested in it.
 */
export class AnalysisSession {
  readonly log = new OperationLog();
  readonly probe: FilesystemProbe = createFilesystemProbe();
  /** Directories created earlier in the command line (`mkdir -p out && cd out`). */
  readonly createdDirectories = new Set<string>();
  /** Files the command line writes, by physical path: a later run of one runs what is not on disk yet (script-files.ts). */
  readonly writtenFiles = new Set<string>();
  /** Directories the command line writes whole trees into (`cp -r`, `tar x`): any file under them is written too. */
  readonly writtenTrees = new Set<string>();
  private nodesLeft = MAX_SYNTAX_NODES;
  /** monotonicMs() past which the analysis gives up (ANALYSIS_TIME_BUDGET_MS). */
  readonly deadline = monotonicMs() + ANALYSIS_TIME_BUDGET_MS;

  constructor(
    private readonly parser: BashParser,
    readonly mayReadScript: (path: string) => boolean = () => false,
  ) {}

  /** True when the command line writes `path` (anywhere in it: the walk is not the order things run in). */
  written(path: string): boolean {
    if (this.writtenFiles.has(path)) return true;
    for (const tree of this.writtenTrees) if (path.startsWith(`${tree}/`)) return true;
    return false;
  }

  /**
   * Parses `code` and follows everything it runs, starting from `state`. `depth` counts the
   * scripts-in-strings around it (`sh -c`, `eval`, heredocs fed to a shell).
   */
  analyzeScript(code: string, state: ShellState, depth: number, via = 'nested shell code'): void {
    if (depth > MAX_SCRIPT_DEPTH) throw new UnanalyzableCommand(`shell code nested more than ${MAX_SCRIPT_DEPTH} levels deep (sh -c, eval, heredocs)`);
    if (code.length > MAX_COMMAND_BYTES / 3 && Buffer.byteLength(code, 'utf8') > MAX_COMMAND_BYTES) {
      throw new UnanalyzableCommand(`the command is longer than ${MAX_COMMAND_BYTES} bytes`);
    }
    this.checkTime();
    if (this.nodesLeft <= 0) throw new AnalysisLimitReached('the command is too large to analyze');
    const parsed = this.parser.parse(code, this.nodesLeft, this.deadline);
    if (!parsed.ok) {
      const message = depth === 0 ? parsed.message : `in nested shell code (${via}): ${parsed.message}`;
      throw parsed.limit ? new AnalysisLimitReached(message) : new UnanalyzableCommand(message);
    }
    this.nodesLeft -= parsed.nodes;
    new ScriptWalker(this, code, depth).program(parsed.root, state);
  }

  /** Throws once the analysis has run past its time budget. */
  checkTime(): void {
    if (monotonicMs() > this.deadline) throw new AnalysisLimitReached(`the command takes more than ${ANALYSIS_TIME_BUDGET_MS} ms to analyze`);
  }
}
