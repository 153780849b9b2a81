import { parseArguments, type OptionSyntax } from '../argument-parser.js';
import type { CommandContext, CommandConvention } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { argumentsOf, reportEach } from './operands.js';
import { codeFromStdin } from './shells.js';

/**
 * Programs that run a command later or elsewhere on this machine, detached from the line that
 * starts them: terminal multiplexers (`tmux new -d 'cat .env > /tmp/x'`, `screen -dm cat .env`)
 * and job schedulers (`echo 'cat .env' | at now`). The command they are given is followed as if
 * it ran now. Keys typed into a running shell (`tmux send-keys`, `screen -X stuff`) are code
 * known only when that shell reads them.
 */

/** A shell command, one word for `sh -c` or several run as they are, the way tmux 3 takes it. */
function runShellCommand(context: CommandContext, words: readonly Word[], via: string, cwd: Word | undefined): void {
  if (words.length === 0) return;
  const only = words.length === 1 ? words[0] : undefined;
  if (only === undefined) {
    context.run(words, { ...(cwd && { cwd }) });
    return;
  }
  if (only.value === undefined) context.dynamic('execute', only.text, only.reason, via);
  else context.script(only.value, via, { ...(cwd && { cwd }) });
}

/** tmux commands that run a shell command: their options taking a value, and the one naming its start directory. */
const TMUX_RUNNERS: Record<string, { syntax: OptionSyntax; directory: string }> = {
  'new-session': { syntax: { short: 'cefFnstxy' }, directory: '-c' },
  'new-window': { syntax: { short: 'ceFnt' }, directory: '-c' },
  'split-window': { syntax: { short: 'celptF' }, directory: '-c' },
  'respawn-pane': { syntax: { short: 'cet' }, directory: '-c' },
  'respawn-window': { syntax: { short: 'cet' }, directory: '-c' },
  'run-shell': { syntax: { short: 'cdt' }, directory: '-c' },
  'display-popup': { syntax: { short: 'bcdehsStTwxy' }, directory: '-d' },
  'pipe-pane': { syntax: { short: 't' }, directory: '' },
  'if-shell': { syntax: { short: 't' }, directory: '' },
};

/** tmux commands that run no code and open no file (a `#(…)` format in their arguments still does). */
const TMUX_INERT = new Set([
  'attach-session', 'break-pane', 'capture-pane', 'clear-history', 'clear-prompt-history', 'clock-mode', 'copy-mode', 'customize-mode', 'delete-buffer', 'detach-client', 'find-window',
  'has-session', 'join-pane', 'kill-pane', 'kill-server', 'kill-session', 'kill-window', 'last-pane', 'last-window', 'link-window', 'list-buffers', 'list-clients', 'list-commands',
  'list-keys', 'list-panes', 'list-sessions', 'list-windows', 'lock-client', 'lock-server', 'lock-session', 'move-pane', 'move-window', 'next-layout', 'next-window', 'previous-layout',
  'previous-window', 'refresh-client', 'rename-session', 'rename-window', 'resize-pane', 'resize-window', 'rotate-window', 'select-layout', 'select-pane', 'select-window', 'send-prefix',
  'server-access', 'set-buffer', 'show-buffer', 'show-environment', 'show-hooks', 'show-messages', 'show-options', 'show-prompt-history', 'show-window-options', 'start-server',
  'suspend-client', 'swap-pane', 'swap-window', 'switch-client', 'unbind-key', 'unlink-window', 'wait-for', 'display-message',
]);

/** Every other tmux command: what it does with files, or that it runs code (hooks, options, key bindings, keys typed into a pane, menus, prompts). */
const TMUX_OTHERS = [
  'bind-key', 'choose-buffer', 'choose-client', 'choose-tree', 'command-prompt', 'confirm-before', 'display-menu', 'display-panes', 'load-buffer', 'paste-buffer', 'save-buffer',
  'send-keys', 'set-environment', 'set-hook', 'set-option', 'set-window-option', 'source-file',
];

const TMUX_COMMANDS = [...Object.keys(TMUX_RUNNERS), ...TMUX_INERT, ...TMUX_OTHERS];

const TMUX_ALIASES: Record<string, string> = {
  attach: 'attach-session', bind: 'bind-key', breakp: 'break-pane', capturep: 'capture-pane', clearhist: 'clear-history', confirm: 'confirm-before', deleteb: 'delete-buffer',
  detach: 'detach-client', menu: 'display-menu', display: 'display-message', displayp: 'display-panes', popup: 'display-popup', findw: 'find-window', has: 'has-session', if: 'if-shell',
  joinp: 'join-pane', killp: 'kill-pane', killw: 'kill-window', lastp: 'last-pane', last: 'last-window', linkw: 'link-window', lsb: 'list-buffers', lsc: 'list-clients',
  lscm: 'list-commands', lsk: 'list-keys', lsp: 'list-panes', ls: 'list-sessions', lsw: 'list-windows', loadb: 'load-buffer', lockc: 'lock-client', lock: 'lock-server',
  locks: 'lock-session', movep: 'move-pane', movew: 'move-window', new: 'new-session', neww: 'new-window', nextl: 'next-layout', next: 'next-window', pasteb: 'paste-buffer',
  pipep: 'pipe-pane', prevl: 'previous-layout', prev: 'previous-window', refresh: 'refresh-client', rename: 'rename-session', renamew: 'rename-window', resizep: 'resize-pane',
  resizew: 'resize-window', respawnp: 'respawn-pane', respawnw: 'respawn-window', rotatew: 'rotate-window', run: 'run-shell', saveb: 'save-buffer', selectl: 'select-layout',
  selectp: 'select-pane', selectw: 'select-window', send: 'send-keys', setb: 'set-buffer', setenv: 'set-environment', set: 'set-option', setw: 'set-window-option',
  showb: 'show-buffer', showenv: 'show-environment', showmsgs: 'show-messages', show: 'show-options', showw: 'show-window-options', source: 'source-file', splitw: 'split-window',
  start: 'start-server', suspendc: 'suspend-client', swapp: 'swap-pane', swapw: 'swap-window', switchc: 'switch-client', unbind: 'unbind-key', unlinkw: 'unlink-window', wait: 'wait-for',
};

/** The command a name means to tmux: itself, an alias, or the one command it is a prefix of (`new-sess`); undefined when unknown or ambiguous. */
function tmuxCommandNamed(name: string): string | undefined {
  const exact = (Object.hasOwn(TMUX_ALIASES, name) ? TMUX_ALIASES[name] : undefined) ?? (TMUX_COMMANDS.includes(name) ? name : undefined);
  if (exact !== undefined) return exact;
  const prefixed = TMUX_COMMANDS.filter((command) => command.startsWith(name));
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

function tmuxCommand(context: CommandContext, words: readonly Word[]): void {
  const first = words[0];
  if (first === undefined) return;
  const text = words.map((word) => word.value ?? word.text).join(' ');
  const command = first.value === undefined ? undefined : tmuxCommandNamed(first.value);
  // `#(…)` in a format runs a shell command, in any argument of any command.
  if (command === undefined || words.some((word) => word.value === undefined || word.value.includes('#('))) {
    context.dynamic('execute', text, 'interpreter_code', 'tmux command');
    return;
  }
  const rest = words.slice(1);
  if (TMUX_INERT.has(command)) return;
  if (command === 'load-buffer' || command === 'save-buffer') {
    const file = parseArguments(rest, { short: 'bt' }).operands[0];
    if (file !== undefined) context.file(command === 'load-buffer' ? 'read' : 'write', file, `tmux ${command}`);
    return;
  }
  const runner = Object.hasOwn(TMUX_RUNNERS, command) ? TMUX_RUNNERS[command] : undefined;
  if (runner === undefined) {
    context.dynamic('execute', text, 'interpreter_code', `tmux ${command} (runs commands or types into a pane)`);
    return;
  }
  const parsed = parseArguments(rest, { ...runner.syntax, stopAtOperand: true });
  if (command === 'run-shell' && parsed.has('-C')) {
    context.dynamic('execute', text, 'interpreter_code', 'tmux run-shell -C (a tmux command)');
    return;
  }
  const cwd = runner.directory === '' ? undefined : parsed.last(runner.directory);
  if (command === 'if-shell') {
    // A shell command, then tmux commands to run on its outcome.
    runShellCommand(context, parsed.operands.slice(0, 1), 'tmux if-shell', undefined);
    for (const then of parsed.operands.slice(1)) context.dynamic('execute', then.value ?? then.text, 'interpreter_code', 'tmux if-shell command');
    return;
  }
  // pipe-pane and run-shell take one shell command; the others one, or a program and its arguments.
  const shellWords = command === 'pipe-pane' || command === 'run-shell' ? parsed.operands.slice(0, 1) : parsed.operands;
  runShellCommand(context, shellWords, `tmux ${command}`, cwd);
}

/** tmux [-c shell-command] [-f file] … command [args] [; command …]: an argument ending in `;` ends a command. */
const TMUX: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'cfLST', stopAtOperand: true });
    // Control mode (-C, -CC) reads tmux commands from standard input.
    if (parsed.has('-C') && context.stdin.kind !== 'inherited') context.dynamic('execute', 'tmux -C (commands from standard input)', 'interpreter_code', 'tmux control mode');
    for (const code of parsed.values('-c')) runShellCommand(context, [code], 'tmux -c', undefined);
    for (const file of parsed.values('-f')) context.dynamic('execute', file.value ?? file.text, 'interpreter_code', 'tmux -f configuration (it runs commands)');
    let command: Word[] = [];
    for (const word of parsed.operands) {
      const value = word.value;
      if (value !== undefined && value.endsWith(';') && !value.endsWith('\\;')) {
        const before = value.slice(0, -1);
        if (before !== '') command.push({ ...word, value: before });
        tmuxCommand(context, command);
        command = [];
      } else command.push(word);
    }
    tmuxCommand(context, command);
  },
};

/** screen [options] [cmd [args]]: the command runs as given; `-X` sends a screen command, `stuff` types keys. */
const SCREEN: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context);
    // -X (alone or in a cluster, `-dX`) takes the rest of the line as a command for a running screen.
    const x = words.findIndex((word) => word.value === undefined || /^-[a-zA-Z]*X/.test(word.value));
    if (x !== -1) {
      context.dynamic('execute', words.map((word) => word.value ?? word.text).join(' '), 'interpreter_code', 'screen -X (a command for a running screen)');
      return;
    }
    const parsed = parseArguments(words, { short: 'cehpSTs', stopAtOperand: true });
    for (const file of parsed.values('-c')) context.dynamic('execute', file.value ?? file.text, 'interpreter_code', 'screen -c configuration (it runs commands)');
    // -s: the shell screen starts in each window.
    for (const shell of parsed.values('-s')) context.file('execute', shell, 'screen -s shell', { runner: 'kernel' });
    if (parsed.operands.length > 0) context.run(parsed.operands);
  },
};

/** at, batch: the job is shell code, from standard input or `-f file`; -l, -r, -d, -c only list, remove or print jobs. */
const AT: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'qft' });
    if (parsed.has('-l', '-r', '-d', '-c')) return;
    const files = parsed.values('-f');
    if (files.length > 0) for (const file of files) context.file('execute', file, `${context.program} -f`, { runner: 'new_shell' });
    else codeFromStdin(context);
  },
};

/**
 * launchctl (macOS): `submit -l label -- cmd …` has launchd run a command, `load`/`bootstrap` a job
 * file, `start`/`kickstart` a loaded job, each later and outside any hook: dynamic code.
 */
const LAUNCHCTL: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context);
    const subcommand = words[0]?.value;
    if (subcommand === undefined || !['submit', 'load', 'bootstrap', 'start', 'kickstart', 'asuser'].includes(subcommand)) return;
    context.dynamic('execute', words.map((word) => word.value ?? word.text).join(' '), 'interpreter_code', `launchctl ${subcommand} (launchd runs it later, outside any hook)`);
    // What a submitted command does is followed as well, as if it ran now.
    const dashes = words.findIndex((word) => word.value === '--');
    if (subcommand === 'submit' && dashes !== -1 && dashes + 1 < words.length) context.run(words.slice(dashes + 1));
  },
};

/**
 * crontab [-u user] [file | -]: installs a table of jobs cron runs later, outside any hook, on its
 * own schedule (`* * * * * cat ~/.ssh/id_rsa > /tmp/k`). The table is code in cron's syntax, from a
 * file or standard input, known for sure only when cron runs it: dynamic code. `-e` installs what
 * an editor leaves; `-l` lists, `-r` removes, `-T` checks a file without installing it.
 */
const CRONTAB: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'usc' });
    if (parsed.has('-l', '-r', '-T') && !parsed.has('-e')) {
      reportEach(context, 'read', parsed.has('-T') ? parsed.operands : [], 'crontab -T');
      return;
    }
    const table = parsed.operands[0];
    if (table !== undefined && table.value !== '-') context.file('read', table, 'crontab table');
    const text = table === undefined || table.value === '-' ? (context.stdin.kind === 'text' && context.stdin.text !== undefined ? context.stdin.text : 'crontab (jobs from standard input)') : (table.value ?? table.text);
    context.dynamic('execute', text.slice(0, 200), 'interpreter_code', 'crontab installs jobs cron runs later, outside any hook');
  },
};

export const DETACHED_RUNNERS: Record<string, CommandConvention> = {
  crontab: CRONTAB,
  tmux: TMUX,
  screen: SCREEN,
  at: AT,
  launchctl: LAUNCHCTL,
  batch: AT,
};
