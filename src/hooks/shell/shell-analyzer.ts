import { posix } from 'node:path';
import { MAX_COMMAND_BYTES } from './analysis-limits.js';
import { AnalysisSession } from './analysis-session.js';
import { loadBashParser, PlainCommandParser, type BashParser } from './bash-parser.js';
import { cdpathOf } from './cdpath.js';
import { DEFAULT_GLOB_OPTIONS } from './glob-expansion.js';
import { UnanalyzableCommand } from './operation-log.js';
import { normalizeAbsolute } from './path-resolution.js';
import type { ShellAnalysis, ShellContext } from './shell-analysis.js';
import { knownDirectory } from './working-directory.js';

/** Reads a command line the way bash would and reports every file operation it performs. */
export interface ShellAnalyzer {
  /**
   * Synchronous and never throws: anything that cannot be analyzed to the end (a syntax error,
   * a limit reached, an internal failure) is `{ ok: false, code: 'shell_unparsable' }`, so the
   * caller fails closed.
   */
  analyze(command: string, context: ShellContext): ShellAnalysis;
}

let loading: Promise<ShellAnalyzer> | undefined;

/** The analyzer, with web-tree-sitter and the bash grammar initialized once per process. */
export function loadShellAnalyzer(): Promise<ShellAnalyzer> {
  loading ??= loadBashParser().then(createShellAnalyzer);
  loading.catch(() => (loading = undefined));
  return loading;
}

/**
 * The analysis of `command` without the bash grammar, for a process that has not loaded it: the
 * same analysis as the analyzer's when the line and every script it runs are plain command lines
 * (plain-command-tree.ts), and undefined otherwise, when only the grammar can tell.
 */
export function analyzeWithoutGrammar(command: string, context: ShellContext): ShellAnalysis | undefined {
  const parser = new PlainCommandParser();
  const analysis = new BashShellAnalyzer(parser).analyze(command, context);
  return parser.grammarNeeded ? undefined : analysis;
}

/** An analyzer over `parser` (loadShellAnalyzer's is the process' own). */
export function createShellAnalyzer(parser: BashParser): ShellAnalyzer {
  return new BashShellAnalyzer(parser);
}

class BashShellAnalyzer implements ShellAnalyzer {
  constructor(private readonly parser: BashParser) {}

  analyze(command: string, context: ShellContext): ShellAnalysis {
    try {
      if (typeof command !== 'string') return unparsable('the command is not a string');
      if (command.length > MAX_COMMAND_BYTES / 3 && Buffer.byteLength(command, 'utf8') > MAX_COMMAND_BYTES) return unparsable(`the command is longer than ${MAX_COMMAND_BYTES} bytes`);
      if (!posix.isAbsolute(context.cwd) || !posix.isAbsolute(context.home)) return unparsable('the working directory and the home directory must be absolute paths');
      const session = new AnalysisSession(this.parser, context.mayReadScript);
      session.analyzeScript(command, { cwd: knownDirectory(normalizeAbsolute(context.cwd)), previous: undefined, stack: [], home: normalizeAbsolute(context.home), glob: DEFAULT_GLOB_OPTIONS, cdpath: context.cdpath === undefined ? 'inherited' : cdpathOf(context.cdpath), pathChanged: false, suspect: new Set() }, 0);
      return { ok: true, commands: session.log.commands, operations: session.log.operations };
    } catch (error) {
      if (error instanceof UnanalyzableCommand) return unparsable(error.message);
      // A stack overflow or a bug in a handler: still a refusal, never an exception for the hook.
      return unparsable(`the analyzer could not follow this command (${error instanceof Error ? error.message : String(error)})`);
    }
  }
}

function unparsable(message: string): ShellAnalysis {
  return { ok: false, code: 'shell_unparsable', message };
}
