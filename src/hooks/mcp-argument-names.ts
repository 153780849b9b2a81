/**
 * How MCP servers name the arguments and tools that touch files, shared by the runtimes' MCP call
 * mapping (runtimes/mcp-calls.ts) and the planner (hook-actions.ts).
 */

/** Argument names under which MCP servers commonly take a file path; a list under them is a list of paths. */
const PATH_KEYS = new Set(['path', 'paths', 'file', 'files', 'filename', 'filenames', 'source', 'sources', 'src', 'directory', 'directories', 'dir', 'dirs', 'root', 'uri', 'location', 'folder', 'folders']);
/**
 * Any other name that ends like one (`file_path`, `relative_path`, `absolute_path`, `pathInProject`,
 * `root_path`, `db_path`, `file_name`, `pathname`, `sourceDir`, `targetFile`): servers name their
 * path arguments every way, and a name that says path is worth reading as one. A value that is
 * not a path costs nothing: only a protected or run-time path changes a decision.
 */
const PATH_KEY_ENDING = /(?:path|paths|pathname|file|files|filename|filenames|dir|dirs|directory|directories|folder|folders)$/;

export function isPathKey(name: string): boolean {
  const lower = name.toLowerCase();
  // …or starts like one (JetBrains' `pathInProject`).
  return PATH_KEYS.has(lower) || PATH_KEY_ENDING.test(lower.replace(/[-_]/g, '')) || /^path(?:in|_in|_?relative|_?to)/.test(lower);
}

/** Words of a tool name that say it reads the contents of what it searches; `list` and `tree` tools read names only, like Glob. */
export const SEARCH_WORDS: ReadonlySet<string> = new Set(['search', 'grep', 'rg', 'ripgrep', 'find', 'ag', 'ack']);
