import type { ToolCall } from '../hook-event.js';

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
  return shell === undefined ? { call } : { call, additionalCalls: [shell] };
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
const COMMAND_KEYS = ['command', 'cmd', 'commandLine', 'command_line'];
const WORKDIR_KEYS = ['cwd', 'workdir', 'working_directory', 'workingDirectory', 'work_dir', 'dir'];
const TERMINAL_INPUT_KEYS = ['input', 'chars', 'keys', 'text', 'data'];

function mcpShellCall(tool: string, args: Record<string, unknown>): ToolCall | undefined {
  const words = toolWords(tool);
  const has = (...candidates: string[]) => candidates.some((word) => words.includes(word));
  const cwd = firstString(args, WORKDIR_KEYS);
  const runIn = cwd === undefined || cwd === '' ? {} : { cwd };
  if (has('interact', 'stdin') || (has('send', 'write', 'type') && has('input', 'keys', 'process', 'terminal', 'session', 'stdin', 'pty'))) {
    const input = firstString(args, TERMINAL_INPUT_KEYS);
    if (input !== undefined) return { kind: 'shell', command: input, ...runIn, terminal: 'input' };
  }
  if (!words.some((word) => SHELL_TOOL_WORDS.has(word)) && !(has('run', 'start') && has('command', 'script'))) return undefined;
  const command = firstString(args, COMMAND_KEYS);
  if (command === undefined || command.trim() === '') return undefined;
  const shell = firstString(args, ['shell']);
  const dialect = shell !== undefined && /pwsh|powershell/i.test(shell) ? { dialect: 'powershell' as const } : {};
  return { kind: 'shell', command, ...dialect, ...runIn, terminal: 'session' };
}

function firstString(args: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = args[key];
    if (typeof value === 'string') return value;
  }
  return undefined;
}
