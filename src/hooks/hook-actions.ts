import { lstatSync, statSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { ACTION_SCHEMA_VERSION, MAX_STRING_LENGTH, type Payload } from '../actionpass/action.js';
import { hashCanonical } from '../events/canonical.js';
import type { HookEvent, ToolCall } from './hook-event.js';
import { findProtectedInside, WALK_LIMITS } from './protected-inside.js';
import { ignoredAndUntracked, repositoryRootOf } from './git-ignored.js';
import { interactiveProgram, shellStartingWrapper } from './interactive-programs.js';
import { toolWords } from './runtimes/mcp-calls.js';
import { globLeavesUnread } from './glob-filter.js';
import { isPathKey, SEARCH_WORDS } from './mcp-argument-names.js';
import { leftOutOfPackage } from './npm-packed.js';
import { findProtectedTracked } from './protected-tracked.js';
import { ignoredByRipgrep } from './ripgrep-skips.js';
import type { FileOperation, ShellAnalysis, ShellContext } from './shell/shell-analysis.js';
import { monotonicMs } from '../monotonic-clock.js';

/**
 * Turns what an agent is about to do into the actions svc decides (svc.action.v0 inputs, not yet
 * normalized). A shell command is one `shell.command.run` action plus one `fs.file.<kind>` action
 * for every file operation it performs, so a copy of a protected file is denied for its source
 * read, whatever the destination. A recursive read is also an action for every protected file
 * inside the directory it covers.
 *
 * Identical input gives identical payloads (and so identical payload hashes): that is how the
 * identical command finds the approval granted for it.
 */
export interface PlannedAction {
  /** What it is, for the reason shown to the model: "read /repo/.env (cat argument)". */
  label: string;
  input: {
    schemaVersion: typeof ACTION_SCHEMA_VERSION;
    actor: { agentId: string; runtime: string };
    intent: { taskId: string };
    capability: { tool: string; resource: string; payload: Payload };
  };
}

export interface PlanTools {
  analyze(command: string, context: ShellContext): ShellAnalysis;
  resolvePath(text: string, context: ShellContext): { path: string; realPath?: string };
  /** The protected pattern `path` falls under for a read, if any (for walking recursive reads). */
  protects(path: string): string | undefined;
  home: string;
}

export function planHookActions(event: HookEvent, tools: PlanTools): PlannedAction[] {
  const context: ShellContext = { cwd: event.cwd, home: tools.home };
  const make = actionMaker(event);
  if (event.event === 'prompt') {
    return promptMentions(event.prompt).map((mention) => fileAction(make, 'read', tools.resolvePath(mention, context), { via: 'prompt @mention' }));
  }
  // One tool call may name several targets (a multi-file patch): each is planned like the first.
  const skipsIgnored = event.runtime === 'claude-code' && event.toolName === 'Grep';
  return [event.call, ...(event.additionalCalls ?? [])].flatMap((call) => planToolCall(call, event.toolName, context, make, tools, skipsIgnored));
}

/** `skipsIgnored`: the tool is Claude Code's Grep, which runs ripgrep and so leaves gitignored files unread (ripgrep-skips.ts). */
function planToolCall(call: ToolCall, toolName: string, context: ShellContext, make: ActionMaker, tools: PlanTools, skipsIgnored: boolean): PlannedAction[] {
  switch (call.kind) {
    case 'shell': {
      // A working directory the call names (Codex's `workdir`) is where its relative paths lead.
      const shellContext = call.cwd === undefined ? context : { ...context, cwd: tools.resolvePath(call.cwd, context).path };
      if (call.dialect === 'powershell') return planPowerShell(call.command, shellContext, make, tools);
      if (call.terminal === 'input') return planTerminalInput(call.command, shellContext, make, tools);
      return planShell(call.command, shellContext, make, tools, call.terminal === 'session');
    }
    case 'read':
      return [fileAction(make, 'read', tools.resolvePath(call.path, context), { via: toolName })];
    case 'write': {
      const inputHash = hashCanonical(call.input);
      return [fileAction(make, 'write', tools.resolvePath(call.path, context), { via: toolName, inputHash })];
    }
    case 'search': {
      const target = tools.resolvePath(call.path ?? '.', context);
      if (!call.contents) {
        return [make(`list ${target.path}`, 'fs.directory.list', fileResource(target.path), { path: cut(target.path), pattern: cut(call.pattern), via: toolName })];
      }
      const operation: FileOperation = { kind: 'read', path: target.path, ...(target.realPath && { realPath: target.realPath }), recursive: isDirectory(target.path), via: toolName };
      // A glob overrides ripgrep's ignore rules, so with one every file under the path may be read,
      // except what the glob itself cannot select (`*.ts` never reads `.env`).
      const glob = call.glob;
      const skipped = (found: FileOperation): boolean =>
        found.path !== undefined && (glob === undefined ? skipsIgnored && ignoredByRipgrep(found.path, target.path) : globLeavesUnread(glob, found.path, target.path));
      return withProtectedInside([operation], tools, skipped).map((op) => operationAction(make, op, { pattern: cut(call.pattern), ...(call.glob !== undefined && { glob: cut(call.glob) }) }));
    }
    case 'fetch': {
      const fetch = make(`fetch ${call.url}`, 'web.page.fetch', resource('url', call.url), { url: cut(call.url) });
      // A file: URL is a local read, whatever the runtime's fetcher makes of it.
      const local = call.url.toLowerCase().startsWith('file:') ? decodeFileUri(call.url) : undefined;
      return local === undefined ? [fetch] : [fetch, fileAction(make, 'read', tools.resolvePath(local, context), { via: `${toolName} file: URL` })];
    }
    case 'mcp': {
      const paths = mcpPaths(call.tool, call.arguments).map(({ kind, text, key }) => ({ kind, key, target: tools.resolvePath(text, context) }));
      // A search tool given a directory reads the files under it, as the Grep tool does.
      const searches = searchesContents(call.tool);
      const operations = paths.map(({ kind, key, target }): FileOperation => ({ kind, ...target, ...(searches && kind === 'read' && isDirectory(target.path) && { recursive: true }), via: `${toolName} argument ${key}` }));
      const patch = mcpPatchRead(call.tool, call.arguments, toolName, (text) => tools.resolvePath(text, context).path);
      if (patch !== undefined) operations.push(patch);
      return [
        make(`call ${call.server}/${call.tool}`, `mcp.${toolSegment(call.server)}.${toolSegment(call.tool)}`, resource('mcp', call.server), call.arguments as Payload),
        ...withProtectedInside(operations, tools).map((operation) => operationAction(make, operation, {})),
        ...mcpBlobPaths(call.arguments).map(({ text, key }) => fileAction(make, 'read', tools.resolvePath(text, context), { via: `${toolName} argument ${key} (a git blob)` })),
      ];
    }
    case 'other':
      return [];
  }
}

/**
 * An unparsable command is still an action, so its refusal (shell_unparsable) is on the record.
 * `writableSession`: the runtime can type into the command's terminal later without a hook
 * judging what is typed, so a program that reads commands from its terminal is a dynamic run.
 */
function planShell(command: string, context: ShellContext, make: ActionMaker, tools: PlanTools, writableSession = false): PlannedAction[] {
  // A script the command runs is followed only when it is not protected: its text would reach the payloads.
  const analysis = tools.analyze(command, { ...context, mayReadScript: (path) => tools.protects(path) === undefined });
  const bound = boundCommand(command);
  if (!analysis.ok) return [make(`run \`${preview(command)}\``, 'shell.command.run', resource('shell', context.cwd), { ...bound, cwd: context.cwd, unparsable: cut(analysis.message) })];
  const argv = analysis.commands.map((simple) => simple.argv.map(cut));
  // The same words as one text, a line per simple command, for rules: a regex over what runs
  // (wrappers peeled, quotes removed) is not fooled by `sudo`, `g''it` or `{ …; }` as the raw text is.
  const simpleCommands = cut(analysis.commands.map((simple) => simple.argv.join(' ')).join('\n'));
  const actions: PlannedAction[] = [make(`run \`${preview(command)}\``, 'shell.command.run', resource('shell', context.cwd), { ...bound, argv, simpleCommands, cwd: context.cwd })];
  for (const operation of withProtectedInside(analysis.operations, tools)) actions.push(operationAction(make, operation, { ...bound, cwd: context.cwd }));
  if (writableSession) {
    const program = analysis.commands.map((simple) => interactiveProgram(simple.argv)).find((name) => name !== undefined) ?? shellStartingWrapper(command);
    if (program !== undefined) {
      const via = `${program} reads commands from a terminal the agent can type into later, unseen by any hook`;
      actions.push(operationAction(make, { kind: 'execute', dynamic: { text: `${program} (commands typed into its terminal)`, reason: 'unsupported' }, via }, { ...bound, cwd: context.cwd }));
    }
  }
  return actions;
}

/**
 * The working directory of a session the agent types into: whatever the session `cd`-ed to,
 * which no hook saw. Relative paths are resolved under this name, which no real directory has,
 * so a path protected anywhere (`.env`) is still found, and any other relative path is known
 * only at run time.
 */
const SESSION_CWD = '/<session working directory>';

/** Copilot's write_bash keys: `{enter}` ends a line; the others edit or recall a line in ways the text does not show. */
const TERMINAL_KEY = /\{(enter|up|down|left|right|backspace|delete|tab|escape|esc|home|end|pageup|pagedown|ctrl\+?[a-z]|[a-z+-]+)\}/gi;

/**
 * Text typed into a running session (Copilot's `write_bash`, an MCP `interact_with_process`): a
 * bash command line as far as it can be read, in a working directory the hook does not know.
 * What cannot be read as one line the shell runs as written is known only at run time: editing
 * keys and control characters (`{backspace}`, `{up}`, Tab completion, ^R), a line not yet ended
 * (the next write completes it: `cat .e` then `nv`), history expansion (`!!`, `!$`), and text
 * that is not bash at all (it may be typed into a REPL approved when it started).
 */
function planTerminalInput(input: string, context: ShellContext, make: ActionMaker, tools: PlanTools): PlannedAction[] {
  let edited = false;
  const text = input
    .replace(TERMINAL_KEY, (_key, name: string) => {
      if (name.toLowerCase() === 'enter') return '\n';
      edited = true;
      return '';
    })
    .replace(/\r\n?/g, '\n');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0009\u000b-\u001f\u007f]/.test(text)) edited = true;
  const unfinished = text !== '' && !text.endsWith('\n');
  const sessionContext: ShellContext = { ...context, cwd: SESSION_CWD };
  const bound = { ...boundCommand(input), cwd: SESSION_CWD, terminal: 'input' };
  const analysis = tools.analyze(text, { ...sessionContext, mayReadScript: () => false });
  const actions: PlannedAction[] = [make(`type \`${preview(input)}\` into a running session`, 'shell.command.run', resource('shell', SESSION_CWD), bound)];
  const dynamicWhy = !analysis.ok ? 'text that is not a bash command line' : edited ? 'editing keys or control characters' : unfinished ? 'a line the next input completes' : text.includes('!') ? 'bash history expansion' : undefined;
  if (analysis.ok) {
    for (const operation of withProtectedInside(analysis.operations, tools)) actions.push(operationAction(make, inSession(operation, tools), bound));
  }
  if (dynamicWhy !== undefined) {
    actions.push(operationAction(make, { kind: 'execute', dynamic: { text: preview(input), reason: 'unsupported' }, via: `input to a running session: ${dynamicWhy}` }, bound));
  }
  return actions;
}

/** A file operation of text typed into a session: a relative path is dynamic unless protected wherever it is. */
function inSession(operation: FileOperation, tools: PlanTools): FileOperation {
  const path = operation.path;
  if (path === undefined || (path !== SESSION_CWD && !path.startsWith(`${SESSION_CWD}/`))) return operation;
  if (tools.protects(path) !== undefined) return operation;
  const relativePath = path === SESSION_CWD ? '.' : path.slice(SESSION_CWD.length + 1);
  return { kind: operation.kind, dynamic: { text: relativePath, reason: 'unsupported' }, via: `${operation.via}, relative to the session's working directory` };
}

/**
 * A PowerShell command is not analysed: svc has no PowerShell grammar, and reading it as bash
 * misreads it (`Get-Content .\.env` would be `..env`). So it is a command whose files are known
 * only at run time (a dynamic read: step_up by default), plus a read of every word of it that
 * names a protected path, so `type .env` or `gc ~\.aws\credentials` is denied outright.
 */
function planPowerShell(command: string, context: ShellContext, make: ActionMaker, tools: PlanTools): PlannedAction[] {
  const bound = { ...boundCommand(command), cwd: context.cwd, shell: 'powershell' };
  const actions: PlannedAction[] = [make(`run PowerShell \`${preview(command)}\``, 'shell.command.run', resource('shell', context.cwd), bound)];
  const words = new Set(command.split(POWERSHELL_SEPARATORS).filter((word) => word !== '' && !word.startsWith('-')));
  let checked = 0;
  for (const word of words) {
    // A command long enough to hold thousands of words still steps up below; only the outright deny is capped.
    if ((checked += 1) > MAX_POWERSHELL_WORDS) break;
    const target = tools.resolvePath(word.replace(/^\$(?:env:)?(?:HOME|USERPROFILE)(?=[\\/]|$)/i, '~').replaceAll('\\', '/'), context);
    if (tools.protects(target.path) !== undefined || (target.realPath !== undefined && tools.protects(target.realPath) !== undefined)) {
      actions.push(fileAction(make, 'read', target, { ...bound, via: 'a PowerShell command naming it' }));
    }
  }
  actions.push(operationAction(make, { kind: 'read', dynamic: { text: preview(command), reason: 'unsupported' }, via: 'a PowerShell command, which svc does not analyse' }, bound));
  return actions;
}

/** What separates the words of a PowerShell command, roughly: enough to find the paths in it. */
const POWERSHELL_SEPARATORS = /[\s;|&(){}'"`,=<>]+/;
const MAX_POWERSHELL_WORDS = 256;

const MCP_DESTINATION_KEYS = new Set(['destination', 'dest', 'target', 'target_path', 'output', 'output_path', 'new_path', 'newpath', 'destination_path', 'dest_path', 'to']);
/**
 * Words of a tool name (toolWords) that say it changes the files it is given: `write_file`,
 * `replace_text_in_file`, `insert_after_symbol`, `set`, `edit_block`, `create_directory`.
 */
const MCP_WRITING_WORDS = new Set([
  'write', 'edit', 'create', 'move', 'rename', 'delete', 'remove', 'put', 'upload', 'save', 'patch', 'append', 'prepend', 'mkdir', 'copy',
  'replace', 'insert', 'set', 'update', 'upsert', 'modify', 'overwrite', 'truncate', 'chmod', 'chown', 'touch', 'rm', 'rmdir', 'unlink', 'mv', 'cp',
  'apply', 'change', 'rewrite', 'refactor', 'restore', 'reset', 'checkout', 'store', 'add', 'format', 'substitute',
]);
const MAX_MCP_PATHS = 64;

/** A word with a verb ending taken off (`writes`, `edited`, `editor`, `replacing`): the verb, if one of `verbs`. */
function hasVerb(words: readonly string[], verbs: ReadonlySet<string>): boolean {
  return words.some((word) => [word, word.replace(/s$/, ''), word.replace(/es$/, ''), word.replace(/e?d$/, ''), word.replace(/ing$/, ''), word.replace(/ing$/, 'e'), word.replace(/o?r$/, ''), word.replace(/e?r$/, '')].some((stem) => verbs.has(stem)));
}

function changesFiles(tool: string): boolean {
  return hasVerb(toolWords(tool), MCP_WRITING_WORDS);
}

function searchesContents(tool: string): boolean {
  return hasVerb(toolWords(tool), SEARCH_WORDS);
}

/**
 * The file paths among an MCP call's arguments (nested objects and lists included, up to a few
 * levels): each is a file action besides the `mcp.<server>.<tool>` one, so a filesystem server's
 * `read_file {"path": ".env"}` meets the protected paths like the runtime's own Read. A path a
 * writing tool is given, or a destination, is a write; the rest are reads. A `file://` URI is its path.
 */
function mcpPaths(tool: string, args: Record<string, unknown>): { kind: 'read' | 'write'; text: string; key: string }[] {
  const found: { kind: 'read' | 'write'; text: string; key: string }[] = [];
  const writes = changesFiles(tool);
  const visit = (value: unknown, key: string, depth: number, pathKey: 'read' | 'write' | undefined): void => {
    if (found.length >= MAX_MCP_PATHS || depth > 4) return;
    if (typeof value === 'string') {
      // A file:// URL is a path whatever its argument is called (`url`, `resource`, `uri`).
      const fileUrl = value.toLowerCase().startsWith('file://');
      if ((pathKey === undefined && !fileUrl) || value === '' || value.includes('\0')) return;
      pathKey ??= writes ? 'write' : 'read';
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) && !value.toLowerCase().startsWith('file://')) return;
      const text = value.toLowerCase().startsWith('file://') ? decodeFileUri(value) : value;
      if (text !== undefined) found.push({ kind: pathKey, text, key });
      return;
    }
    if (Array.isArray(value)) {
      for (const item of value) visit(item, key, depth + 1, pathKey);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    for (const [name, item] of Object.entries(value)) {
      const lower = name.toLowerCase();
      const kind = MCP_DESTINATION_KEYS.has(lower) ? 'write' : isPathKey(name) ? (writes ? 'write' : 'read') : undefined;
      visit(item, key === '' ? name : `${key}.${name}`, depth + 1, kind);
    }
  };
  visit(args, '', 0, undefined);
  return found;
}

/** Argument names under which git MCP servers take a revision: `HEAD:.env` there names a file's content. */
const MCP_REVISION_KEYS = new Set(['revision', 'rev', 'ref', 'commit', 'object', 'treeish', 'tree_ish', 'blob', 'target', 'sha', 'oid']);
/** Argument names under which they take the repository the revision is in. */
const MCP_REPOSITORY_KEYS = ['repo_path', 'repository', 'repo', 'repo_dir', 'cwd', 'path'];

function mcpRepository(args: Record<string, unknown>): string | undefined {
  return MCP_REPOSITORY_KEYS.map((key) => args[key]).find((value): value is string => typeof value === 'string' && value !== '');
}

/**
 * A git MCP server's diff or show (`git_diff_unstaged`, `git_diff_staged`, `git_diff`, `git_show`):
 * the patch it returns holds the changes of tracked files, as `git diff` and `git show` do in a
 * shell, so it is a read of the protected files git tracks in the repository argument (or the
 * working directory); of those changed since staged, for the working tree against the index.
 */
function mcpPatchRead(tool: string, args: Record<string, unknown>, via: string, resolvePath: (text: string) => string): FileOperation | undefined {
  const words = toolWords(tool);
  if (!words.includes('git') || !(words.includes('diff') || words.includes('show'))) return undefined;
  if (!words.includes('diff') && mcpBlobPaths(args).length > 0) return undefined; // `git_show HEAD:README.md` shows that blob only
  const repository = mcpRepository(args);
  const root = repositoryRootOf(resolvePath(repository ?? '.'));
  if (root === undefined) return undefined;
  return { kind: 'read', path: root, recursive: true, skips: words.includes('unstaged') ? 'unchanged' : 'untracked', via: `${via} (tracked files)` };
}

/**
 * `git show HEAD:.env` through an MCP git server (`git_show { revision: 'HEAD:.env' }`): the
 * path after the colon, in the repository argument (or the working directory), is read, from
 * the history instead of the working tree, so it is judged as a read of that path.
 */
function mcpBlobPaths(args: Record<string, unknown>): { text: string; key: string }[] {
  const repository = mcpRepository(args);
  const found: { text: string; key: string }[] = [];
  for (const [key, value] of Object.entries(args)) {
    if (!MCP_REVISION_KEYS.has(key.toLowerCase()) || typeof value !== 'string') continue;
    const blob = /^[^:\s]*:(?:\.\/)?([^:\s].*)$/.exec(value)?.[1];
    if (blob === undefined || /^[a-z][a-z0-9+.-]*\/\//i.test(blob)) continue;
    found.push({ text: repository === undefined || blob.startsWith('/') ? blob : `${repository.replace(/\/+$/, '')}/${blob}`, key });
  }
  return found;
}

function decodeFileUri(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    const path = decodeURIComponent(url.pathname);
    // `file://~/.aws/credentials` puts `~` where the host goes; readers take it as the home directory.
    return url.host === '~' ? `~${path}` : path;
  } catch {
    return undefined;
  }
}

/**
 * Whether the program behind a recursive read leaves `file` (found under it) out by default.
 * ripgrep's own options file (RIPGREP_CONFIG_PATH, in the agent's environment) may undo that.
 */
function skippedByDefault(operation: FileOperation, file: string): boolean {
  if (operation.path === undefined) return false;
  if (operation.skips === 'git') return ignoredAndUntracked(file);
  if (operation.skips === 'npm') return leftOutOfPackage(file, operation.path);
  if (operation.skips !== 'ripgrep' || (process.env.RIPGREP_CONFIG_PATH ?? '') !== '') return false;
  return hiddenBelow(file, operation.path) || ignoredByRipgrep(file, operation.path);
}

/** Whether a name on the way from `root` down to `file` starts with a dot. */
function hiddenBelow(file: string, root: string): boolean {
  const rest = relative(root, file);
  return rest !== '' && !rest.startsWith('..') && rest.split(sep).some((name) => name.startsWith('.'));
}

/**
 * Adds, after every recursive read, a read of each protected file inside it (or a dynamic read
 * when the walk was cut short). `skipped` drops the files the reading tool is known to leave unread.
 */
function withProtectedInside(operations: readonly FileOperation[], tools: PlanTools, skipped?: (found: FileOperation) => boolean): FileOperation[] {
  const expanded: FileOperation[] = [];
  // One budget for all the walks of a call: `grep -r x d1 … d300` must not add up to minutes.
  const deadline = monotonicMs() + PROTECTED_WALKS_BUDGET_MS;
  for (const operation of operations.flatMap((read) => [read, ...objectStoreRead(read)])) {
    const tree = operation.recursive === true && operation.path !== undefined && isDirectory(operation.path);
    // What git tracks (`git diff`, `git show`) is judged by the protected files its index lists, one
    // action each; the repository's directory is no file the command reads, and an action of its
    // own would cost every `git diff` a ledger record.
    const ofTrackedFiles = operation.skips === 'untracked' || operation.skips === 'unchanged';
    if (!(tree && ofTrackedFiles)) expanded.push(operation);
    if (!tree || operation.path === undefined) continue;
    const left = deadline - monotonicMs();
    const inside = ofTrackedFiles
      ? findProtectedTracked(operation.path, tools.protects, operation.skips === 'unchanged')
      : left > 0
        ? findProtectedInside(operation.path, tools.protects, { ...WALK_LIMITS, ms: Math.min(WALK_LIMITS.ms, left) })
        : { found: [], complete: false };
    for (const found of inside.found) {
      const read: FileOperation = { kind: operation.kind, ...found, via: `${operation.via}, inside ${operation.path}` };
      if (skipped?.(read)) continue;
      if (read.path !== undefined && skippedByDefault(operation, read.path)) continue;
      expanded.push(read);
    }
    if (!inside.complete) {
      const why = ofTrackedFiles ? `the files git tracks in ${operation.path} are not known` : `${operation.path} is too large to check for protected files`;
      expanded.push({ kind: operation.kind, dynamic: { text: `${operation.path}/**`, reason: 'unsupported' }, via: `${operation.via}: ${why}` });
    }
  }
  return expanded;
}

/**
 * git's object store holds every file git tracks, compressed under names no protected path
 * covers: `cat .git/objects/ab/cdef… | zlib-flate -uncompress` prints a tracked `.env`, and
 * `cp -r .git /tmp/x` copies it. So a read inside `.git/objects`, or of `.git` or `.git/objects`
 * as a tree, is also a read of the protected files the repository's index lists.
 */
function objectStoreRead(operation: FileOperation): FileOperation[] {
  if ((operation.kind !== 'read' && operation.kind !== 'execute') || operation.path === undefined) return [];
  const paths = [operation.path, ...(operation.realPath === undefined ? [] : [operation.realPath])];
  for (const path of paths) {
    const inStore = /^(.*)\/\.git\/objects(?:\/|$)/.exec(path) ?? (operation.recursive === true ? /^(.*)\/\.git$/.exec(path) : null);
    if (inStore !== null) return [{ kind: 'read', path: inStore[1] === '' ? '/' : (inStore[1] as string), recursive: true, skips: 'untracked', via: `${operation.via}: git's object store holds every tracked file` }];
  }
  return [];
}

/** Time for all the walks for protected files under the recursive reads of one call. */
const PROTECTED_WALKS_BUDGET_MS = 1_000;

function operationAction(make: ActionMaker, operation: FileOperation, extra: Payload): PlannedAction {
  if (operation.path === undefined) {
    const text = operation.dynamic?.text ?? '?';
    return make(`${operation.kind} ${text} (${operation.via}; known only at run time)`, `fs.file.${operation.kind}`, resource('file', text), {
      ...extra,
      dynamic: { reason: operation.dynamic?.reason ?? 'unsupported', text: cut(text) },
      operation: operation.kind,
      via: cut(operation.via),
    });
  }
  return fileAction(make, operation.kind, operation, { ...extra, via: operation.via, ...(operation.recursive && { recursive: true }) });
}

function fileAction(make: ActionMaker, kind: FileOperation['kind'], target: { path?: string; realPath?: string }, extra: Payload): PlannedAction {
  const path = target.path ?? '';
  const via = typeof extra.via === 'string' ? ` (${extra.via})` : '';
  const links = kind === 'write' && path !== '' ? hardLinkCount(target.realPath ?? path) : undefined;
  return make(`${kind} ${path}${via}`, `fs.file.${kind}`, fileResource(path), {
    ...extra,
    operation: kind,
    path: cut(path),
    ...(target.realPath !== undefined && target.realPath !== path && { realPath: cut(target.realPath) }),
    ...(links !== undefined && { links }),
  });
}

/**
 * How many names a regular file has, when more than one. Writing through one name writes every
 * other, and one of them may be a guard file (`ln .git/config notes` in an earlier call, then an
 * edit of `notes`): the guard cannot tell which, so such a write needs approval.
 */
function hardLinkCount(path: string): number | undefined {
  try {
    const info = lstatSync(path, { throwIfNoEntry: false });
    return info !== undefined && info.isFile() && info.nlink > 1 ? info.nlink : undefined;
  } catch {
    return undefined;
  }
}

type ActionMaker = (label: string, tool: string, resource: string, payload: Payload) => PlannedAction;

function actionMaker(event: HookEvent): ActionMaker {
  const actor = { agentId: `agent:${event.runtime}`, runtime: event.runtime };
  const intent = { taskId: taskIdOf(event.sessionId) };
  return (label, tool, resourceName, payload) => ({ label, input: { schemaVersion: ACTION_SCHEMA_VERSION, actor, intent, capability: { tool, resource: resourceName, payload } } });
}

/** `@path` mentions in a prompt: the runtime inlines those files, and no tool hook fires for them. */
export function promptMentions(prompt: string): string[] {
  const mentions = new Set<string>();
  // After a space, the start, or punctuation (`(@.env)`, `"@.env"`, `x,@.env`); not inside a word (`me@example.com`).
  for (const match of prompt.matchAll(/(?:^|[\s([{<"'`,;:|=])@("[^"\n]+"|[^\s"'`]+)/g)) {
    const quoted = (match[1] as string).replace(/^"|"$/g, '');
    // Sentence punctuation after a mention is not part of the path (`@.` and `@..` are paths),
    // nor is a line reference (`@src/a.ts#L10-20`, `@src/a.ts:10-20`): the file is read all the same.
    const trimmed = /^\.+$/.test(quoted) ? quoted : quoted.replace(/[.,;:!?)\]}>]+$/, '');
    const raw = trimmed.replace(/#L?\d+(?:-L?\d+)?$/, '').replace(/:\d+(?:-\d+)?$/, '');
    // An MCP resource (`@server:file:///home/me/.aws/credentials`, `@file:///…`) is read by its
    // server: a file:// URL in a mention is that file, whatever comes before it.
    const fileUrl = /file:\/\/\S*/i.exec(raw)?.[0];
    if (fileUrl !== undefined) {
      const local = decodeFileUri(fileUrl);
      if (local !== undefined && local !== '') mentions.add(local);
      continue;
    }
    if (raw !== '' && !raw.includes('@')) mentions.add(raw);
  }
  return [...mentions];
}

/** A command longer than a payload string may be is bound by its hash. */
function boundCommand(command: string): Payload {
  return command.length <= MAX_STRING_LENGTH ? { command } : { commandSha256: hashCanonical(command) };
}

const MAX_RESOURCE_NAME = 1000;

function fileResource(path: string): string {
  return resource('file', path);
}

/** `<kind>:<name>` with control characters shown as `?` and the name cut to the resource limit. */
function resource(kind: string, name: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = name.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return `${kind}:${clean === '' ? '?' : clean.length > MAX_RESOURCE_NAME ? `${clean.slice(0, MAX_RESOURCE_NAME)}…` : clean}`;
}

function cut(text: string): string {
  return text.length > MAX_STRING_LENGTH ? `${text.slice(0, MAX_STRING_LENGTH - 1)}…` : text;
}

function preview(command: string): string {
  const line = command.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

function toolSegment(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  return clean === '' ? '_' : clean;
}

function taskIdOf(sessionId: string): string {
  const clean = sessionId.replace(/[^A-Za-z0-9._:@/-]/g, '_').slice(0, 190);
  return `session:${clean === '' ? 'unknown' : clean}`;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
