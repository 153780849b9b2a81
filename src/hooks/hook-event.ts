/**
 * The runtime-neutral vocabulary of the hooks. Each runtime protocol (src/hooks/runtimes) turns
 * its own stdin JSON into a `HookEvent` and a `HookVerdict` back into its own stdout and exit
 * code; the engine in between never sees a runtime's field names.
 */

export const HOOK_RUNTIMES = ['claude-code', 'codex', 'cursor', 'gemini', 'copilot'] as const;
export type HookRuntime = (typeof HOOK_RUNTIMES)[number];

/** What the agent is about to do, as far as authorization is concerned. */
export type ToolCall =
  /**
   * A shell command line (Claude Code's Bash, Cursor's beforeShellExecution, ...), in bash unless
   * `dialect` says otherwise: a PowerShell command (Copilot's `powershell` tool) is not bash, and
   * the bash analysis would misread it (`.\.env` is not `..env`).
   */
  | {
      kind: 'shell';
      command: string;
      dialect?: 'powershell';
      /** The directory the command runs in, when the call names one (Codex's `workdir`, an MCP tool's `cwd`); relative to the event's cwd. */
      cwd?: string;
      /**
       * How the text reaches a terminal, when not as a command run to completion:
       * - `session`: the command starts in a terminal the runtime can type into later through a
       *   tool no hook judges as a command (Codex's `write_stdin`; Copilot's `write_bash`, whose
       *   text goes to whatever program runs there). A program started here that reads commands
       *   from its terminal (`ssh host`, `vim`, `sqlite3`) is then a decision known only at run time.
       * - `input`: the text is typed into a session that is already running (Copilot's
       *   `write_bash`, an MCP tool's `interact_with_process`): read as bash, but in the session's
       *   own working directory, which the hook does not know.
       */
      terminal?: 'session' | 'input';
    }
  /** A whole-file read by the runtime's own file tool. */
  | { kind: 'read'; path: string }
  /** A file creation or edit by the runtime's own tool; `input` is the tool input, bound into the payload. */
  | { kind: 'write'; path: string; input: unknown }
  /** A search: `contents` true reads file contents (Grep), false lists names only (Glob). */
  | { kind: 'search'; path?: string; pattern: string; glob?: string; contents: boolean }
  | { kind: 'fetch'; url: string }
  /** An MCP tool call routed through the runtime (Claude Code's `mcp__<server>__<tool>`). */
  | { kind: 'mcp'; server: string; tool: string; arguments: Record<string, unknown> }
  /** A tool svc has no opinion on (a todo list, a subagent, ...). */
  | { kind: 'other'; name: string };

export type HookEvent =
  | {
      event: 'tool';
      runtime: HookRuntime;
      sessionId: string;
      cwd: string;
      toolName: string;
      call: ToolCall;
      /**
       * The other targets of the same tool call when it has more than one: Codex's `apply_patch`
       * editing several files, Gemini's `read_many_files` or `web_fetch` with several patterns or
       * URLs. Each must be authorized like `call`; the answer is the strictest of their verdicts.
       */
      additionalCalls?: ToolCall[];
    }
  /** A user prompt, checked for `@path` mentions of protected files before the model sees them. */
  | { event: 'prompt'; runtime: HookRuntime; sessionId: string; cwd: string; prompt: string };

export type HookVerdict =
  /** `reason` is written for the model: what happened and what to do next. */
  | { decision: 'allow' | 'deny' | 'ask'; reason: string }
  /** Print nothing: the runtime's own permission flow goes on as if svc were not there. */
  | { decision: 'no_opinion' };

export interface HookOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface RuntimeProtocol {
  readonly runtime: HookRuntime;
  /** What this runtime can express; the engine downgrades what it cannot (no `ask` → deny). */
  readonly supports: { ask: boolean; prompt: boolean };
  /** Parses the runtime's stdin. Throws `SvcError('hook_input_invalid', …)` on anything it cannot read. */
  parseInput(raw: string): HookEvent;
  /**
   * The runtime's answer for `verdict`. `event` is undefined when the input could not be parsed:
   * the answer must still deny (fail closed) in a form the runtime understands.
   */
  formatVerdict(verdict: HookVerdict, event: HookEvent | undefined): HookOutput;
}
