import { MAX_COMMAND_BYTES, MAX_SCRIPT_DEPTH, MAX_SYNTAX_NODES } from './analysis-limits.js';
import type { BashParser } from './bash-parser.js';
import { createFilesystemProbe, type FilesystemProbe } from './filesystem-probe.js';
import { OperationLog, UnanalyzableCommand } from './operation-log.js';
import type { ShellState } from './shell-state.js';
import { ScriptWalker } from './script-walker.js';

/**
 * One call of `analyze`: the parser, what was found so far, the filesystem lookups made, and
 * the budgets shared by the command line and every script nested in it.
 */
export class AnalysisSession {
  readonly log = new OperationLog();
  readonly probe: FilesystemProbe = createFilesystemProbe();
  /** Directories created earlier in the command line (`mkdir -p out && cd out`). */
  readonly createdDirectories = new Set<string>();
  /**
   * Files the command line writes, by physical path, with what it writes there when that is known
   * statically (`echo 'cat .env' > x.sh`); a later run of one runs that, not what is on disk now.
   */
  readonly writtenFiles = new Map<string, string | undefined>();
  /** Directories the command line writes whole trees into (`cp -r`, `tar x`): any file under them is written too. */
  readonly writtenTrees = new Set<string>();
  private nodesLeft = MAX_SYNTAX_NODES;

  constructor(
    private readonly parser: BashParser,
    readonly mayReadScript: (path: string) => boolean = () => false,
  ) {}

  /** What the command line wrote to `path` so far: `{ content }` (undefined when unknown), or undefined if it did not write it. */
  written(path: string): { content: string | undefined } | undefined {
    if (this.writtenFiles.has(path)) return { content: this.writtenFiles.get(path) };
    for (const tree of this.writtenTrees) if (path.startsWith(`${tree}/`)) return { content: undefined };
    return undefined;
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
    const parsed = this.parser.parse(code, this.nodesLeft);
    if (!parsed.ok) throw new UnanalyzableCommand(depth === 0 ? parsed.message : `in nested shell code (${via}): ${parsed.message}`);
    this.nodesLeft -= parsed.nodes;
    new ScriptWalker(this, code, depth).program(parsed.root, state);
  }
}
