/**
 * Bounds on the work one analysis may do. Anything beyond them is reported as unparsable, so
 * the hook fails closed instead of spending unbounded time or memory on a hostile command line.
 */

/** Longest command line analyzed, in UTF-8 bytes. */
export const MAX_COMMAND_BYTES = 64 * 1024;

/** How deep `sh -c`, `eval`, `trap` and heredocs fed to a shell may nest before giving up. */
export const MAX_SCRIPT_DEPTH = 8;

/** Syntax nodes over all the parses of one analysis (the outer line and every nested script). */
export const MAX_SYNTAX_NODES = 60_000;

/** Nesting of the syntax tree itself (`$( $( $( … ) ) )`): the walkers recurse on it. */
export const MAX_TREE_DEPTH = 400;

/** Words one brace expansion may produce (`{1..1000}{1..1000}` would make a million). */
export const MAX_BRACE_FIELDS = 2_048;

/** Paths one glob may match before the analyzer stops listing and reports it as unsupported. */
export const MAX_GLOB_MATCHES = 2_048;

/** Directory entries read per directory while matching a glob. */
export const MAX_DIRECTORY_ENTRIES = 20_000;

/** Directories listed for globs in one analysis (a pattern with a wildcard in every component could list thousands). */
export const MAX_DIRECTORY_LISTINGS = 256;

/** File operations one analysis may report. */
export const MAX_OPERATIONS = 10_000;

/** Simple commands one analysis may report. */
export const MAX_COMMANDS = 5_000;

/** Wall-clock budget for one tree-sitter parse of a long input, in milliseconds. */
export const PARSE_TIME_BUDGET_MS = 1_000;

/**
 * Wall-clock budget for a whole analysis, in milliseconds. The analysis is synchronous, so the
 * hook's own timeout cannot interrupt it, and a runtime that gives up on a slow hook lets the
 * call through: past this the command is refused instead.
 */
export const ANALYSIS_TIME_BUDGET_MS = 2_000;
