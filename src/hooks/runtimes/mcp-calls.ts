import type { ToolCall } from '../hook-event.js';
import { isPathKey, SEARCH_WORDS } from '../mcp-argument-names.js';

/**
 * An MCP tool call, and the shell it runs when it is a shell under another name. A server that
 * runs commands (`execute_shell_command {command}`, desktop-commander's `start_process`, any
 * tool named like exec, shell, terminal or run_command given a `command` or `cmd` string) runs
 * that text in a shell, so it is planned as a command line besides the MCP call, in the `cwd`
 * (or `workdir`, `working_directory`) it names. A tool that types into a process it started
 * (`interact_with_process {pid, input}`, `write_stdin`, `send_keys`) is text typed into a
 * running terminal. Either kind of server can type into what it started, so programs that read
 * commands from their terminal are checked at start (hook-event.ts `terminal`).
 */
export function mcpCalls(server: string, tool: string, args: Record<string, unknown>): { call: ToolCall; additionalCalls?: ToolCall[] } {
  const call: ToolCall = { kind: 'mcp', server, tool, arguments: args };
  const shell = mcpShellCall(tool, args);
  const more = [...(shell === undefined ? [] : [shell]), ...mcpFileCalls(tool, args)];
  return more.length === 0 ? { call } : { call, additionalCalls: more };
}

/** Words of a tool name: `executeShellCommand`, `execute_shell_command`, `run-command` → execute, shell, command. */
export function toolWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/** Words that say a tool runs a command; `run` only next to `command`, `script` or `process` (`run_command`, not `run_query`). */
const SHELL_TOOL_WORDS = new Set(['exec', 'execute', 'shell', 'bash', 'sh', 'zsh', 'terminal', 'cmd', 'process', 'spawn', 'subprocess', 'console']);
const COMMAND_KEYS = ['command', 'cmd', 'commandline', 'command_line'];
/** Where the program's arguments go when `command` names only the program (`{command: 'cat', args: ['.env']}`). */
const ARGUMENT_KEYS = ['args', 'argv', 'arguments'];
/** Code given with a `language` that is a shell (`execute_code {language: 'bash', code}`). */
const CODE_KEYS = ['code', 'source', 'script'];
const SHELL_LANGUAGES = /^(?:bash|sh|shell|zsh|dash|ksh|shellscript|console)$/i;
const WORKDIR_KEYS = ['cwd', 'workdir', 'working_directory', 'workingdirectory', 'work_dir', 'dir'];
const TERMINAL_INPUT_KEYS = ['input', 'chars', 'keys', 'text', 'data'];

function mcpShellCall(tool: string, given: Record<string, unknown>): ToolCall | undefined {
  // Servers spell their keys every way (`Command`, `CWD`): matched ignoring case.
  const args = lowerKeys(given);
  const words = toolWords(tool);
  const has = (...candidates: string[]) => candidates.some((word) => words.includes(word));
  const cwd = firstString(args, WORKDIR_KEYS);
  const runIn = cwd === undefined || cwd === '' ? {} : { cwd };
  if (has('interact', 'stdin') || (has('send', 'write', 'type') && has('input', 'keys', 'process', 'terminal', 'session', 'stdin', 'pty'))) {
    const input = firstString(args, TERMINAL_INPUT_KEYS);
    if (input !== undefined) return { kind: 'shell', command: input, ...runIn, terminal: 'input' };
  }
  // A tool named just `run` runs what it is given, as `run_command` does.
  const runsAlone = words.length === 1 && words[0] === 'run';
  if (!words.some((word) => SHELL_TOOL_WORDS.has(word)) && !runsAlone && !(has('run', 'start') && has('command', 'script'))) return undefined;
  const command = commandLine(args, has('script'));
  if (command === undefined || command.trim() === '') return undefined;
  const shell = firstString(args, ['shell']);
  const dialect = shell !== undefined && /pwsh|powershell/i.test(shell) ? { dialect: 'powershell' as const } : {};
  return { kind: 'shell', command, ...dialect, ...runIn, terminal: 'session' };
}

/**
 * The command line a call runs: a `command` string, with an `args`/`argv` list of strings joined
 * on as quoted words; a `cmd` list (argv) quoted and joined; `code` whose `language` is a shell;
 * or, for a tool that says it runs a script (`run_script`), a `script` in no other language.
 */
function commandLine(args: Record<string, unknown>, runsScript: boolean): string | undefined {
  const language = firstString(args, ['language', 'lang', 'interpreter', 'runtime', 'shell']);
  const shellLanguage = language !== undefined && SHELL_LANGUAGES.test(language.trim());
  if (shellLanguage) {
    const code = firstString(args, CODE_KEYS);
    if (code !== undefined) return code;
  }
  if (runsScript && (language === undefined || shellLanguage) && typeof args.script === 'string' && firstString(args, COMMAND_KEYS) === undefined) return args.script;
  for (const key of COMMAND_KEYS) {
    const value = args[key];
    if (typeof value === 'string') {
      const rest = ARGUMENT_KEYS.map((name) => args[name]).find(isStringList);
      return rest === undefined || rest.length === 0 ? value : [value, ...rest.map(quoteWord)].join(' ');
    }
    if (isStringList(value) && value.length > 0) return value.map(quoteWord).join(' ');
  }
  return undefined;
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** A word as bash reads it back unchanged. */
function quoteWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

function lowerKeys(args: Record<string, unknown>): Record<string, unknown> {
  const lowered: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    const lower = key.toLowerCase();
    if (!(lower in lowered)) lowered[lower] = value;
  }
  return lowered;
}

function firstString(args: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = args[key];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

/**
 * File actions of an MCP call that the planner's own reading of path arguments (hook-actions.ts
 * `mcpPaths`, `mcpBlobPaths`) leaves out, as read/write/search calls besides the MCP one:
 * - a `name` given to a tool whose name says it handles files (`read_file {name}`, `save {name}`);
 * - a string at any depth under a path key (`paths: [{p: '.env'}]`), where a key inside the list
 *   does not itself name a path;
 * - `cwd`, `projectRoot` or `workspace` as the root a search tool walks when it names no path.
 * Keys are matched ignoring case. A value that is not a protected path costs nothing.
 */
function mcpFileCalls(tool: string, given: Record<string, unknown>): ToolCall[] {
  const args = lowerKeys(given);
  const words = toolWords(tool);
  const writes = words.some((word) => FILE_WRITING_WORDS.has(word));
  const file = (path: string): ToolCall => (writes ? { kind: 'write', path, input: given } : { kind: 'read', path });
  const calls: ToolCall[] = [];
  const fileTool = words.includes('file') || words.includes('files') || (words.length === 1 && FILE_TOOL_VERBS.has(words[0] as string));
  if (fileTool) {
    for (const key of ['name', 'filename', 'file_name']) {
      const value = args[key];
      if (typeof value === 'string' && usablePath(value)) calls.push(file(value));
    }
  }
  for (const path of nestedPaths(given)) calls.push(file(path));
  const searches = words.some((word) => SEARCH_WORDS.has(word) || SEARCH_WORDS.has(word.replace(/(?:es|s|ing|ed)$/, '')));
  // With a path argument the search walks that path (the planner reads it); without, its root.
  if (searches && !Object.keys(given).some(isPathKey)) {
    const root = ['cwd', 'projectroot', 'project_root', 'workspace', 'workspaceroot', 'workspace_root'].map((key) => args[key]).find((value): value is string => typeof value === 'string' && usablePath(value));
    if (root !== undefined) {
      const pattern = firstString(args, ['pattern', 'query', 'regex', 'search', 'text']) ?? '';
      calls.push({ kind: 'search', path: root, pattern, contents: true });
    }
  }
  return calls;
}

/** Words of a tool name that say it writes the file it is given (`write_file`, `save`). */
const FILE_WRITING_WORDS = new Set(['write', 'save', 'create', 'edit', 'update', 'put', 'append', 'delete', 'remove', 'replace', 'overwrite', 'patch', 'store', 'upload', 'move', 'rename', 'copy', 'touch', 'set', 'insert']);
/** A tool named by one of these words alone handles files (`save {name}`, `open {name}`). */
const FILE_TOOL_VERBS = new Set(['read', 'write', 'save', 'open', 'load', 'cat', 'view', 'edit', 'create', 'append', 'delete', 'remove', 'overwrite', 'touch']);
function usablePath(value: string): boolean {
  return value !== '' && !value.includes('\0') && !/^[a-z][a-z0-9+.-]*:\/\//i.test(value);
}

const MAX_NESTED_PATHS = 64;
const CONTENT_KEYS = /^(?:content|contents|text|body|data|value|old_?string|new_?string|old_?text|new_?text|pattern|query|encoding|mode|language)$/i;

/** Strings under a path key that sit inside an object under it whose own key names no path. */
function nestedPaths(args: Record<string, unknown>): string[] {
  const found: string[] = [];
  const visit = (value: unknown, depth: number, underPath: boolean, keyIsPath: boolean): void => {
    if (found.length >= MAX_NESTED_PATHS || depth > 12) return;
    if (typeof value === 'string') {
      // Directly under a path key the planner already reads it.
      if (underPath && !keyIsPath && usablePath(value) && !value.includes('\n')) found.push(value);
      return;
    }
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1, underPath, keyIsPath);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    for (const [name, item] of Object.entries(value)) {
      // What a file holds (`files: [{path, content}]`) is no path.
      if (CONTENT_KEYS.test(name)) continue;
      const isPath = isPathKey(name);
      visit(item, depth + 1, underPath || isPath, isPath && depth < 4);
    }
  };
  visit(args, 0, false, false);
  return found;
}
