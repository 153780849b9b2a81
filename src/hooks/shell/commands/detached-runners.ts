import { parseArguments, type OptionSyntax } from '../argument-parser.js';
import type { CommandContext, CommandConvention } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { argumentsOf } from './operands.js';
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
  'split-window': { syntax: { short: 'celtF' }, directory: '-c' },
  'respawn-pane': { syntax: { short: 'cet' }, directory: '-c' },
  'respawn-window': { syntax: { short: 'cet' }, directory: '-c' },
  'run-shell': { syntax: { short: 'cdt' }, directory: '-c' },
  'display-popup': { syntax: { short: 'bcdehsStTwxy' }, directory: '-d' },
  'pipe-pane': { syntax: { short: 't' }, directory: '' },
  'if-shell': { syntax: { short: 't' }, directory: '' },
};

const TMUX_ALIASES: Record<string, string> = {
  new: 'new-session',
  neww: 'new-window',
  splitw: 'split-window',
  respawnp: 'respawn-pane',
  respawnw: 'respawn-window',
  run: 'run-shell',
  popup: 'display-popup',
  pipep: 'pipe-pane',
  if: 'if-shell',
  send: 'send-keys',
};

function tmuxCommand(context: CommandContext, words: readonly Word[]): void {
  const name = words[0]?.value;
  if (name === undefined) return;
  const command = TMUX_ALIASES[name] ?? name;
  if (command === 'send-keys') {
    const keys = parseArguments(words.slice(1), { short: 'cNt' }).operands;
    if (keys.length > 0) context.dynamic('execute', keys.map((key) => key.value ?? key.text).join(' '), 'interpreter_code', 'tmux send-keys (typed into a running shell)');
    return;
  }
  if (command === 'source-file' || command === 'source') {
    for (const file of parseArguments(words.slice(1), { short: 't' }).operands) context.file('execute', file, 'tmux source-file');
    return;
  }
  const runner = TMUX_RUNNERS[command];
  if (runner === undefined) return;
  const parsed = parseArguments(words.slice(1), { ...runner.syntax, stopAtOperand: true });
  const cwd = runner.directory === '' ? undefined : parsed.last(runner.directory);
  // if-shell: a shell command, then tmux commands; pipe-pane and run-shell: one shell command.
  const shellWords = command === 'if-shell' || command === 'pipe-pane' || command === 'run-shell' ? parsed.operands.slice(0, 1) : parsed.operands;
  runShellCommand(context, shellWords, `tmux ${command}`, cwd);
}

/** tmux [-c shell-command] [-f file] … command [args] [\; command …] */
const TMUX: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'cfLST', stopAtOperand: true });
    for (const code of parsed.values('-c')) runShellCommand(context, [code], 'tmux -c', undefined);
    for (const file of parsed.values('-f')) context.file('execute', file, 'tmux -f configuration (it can run commands)');
    let command: Word[] = [];
    for (const word of parsed.operands) {
      if (word.value === ';' || word.value === '\\;') {
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
    // -X takes the rest of the line as a screen command; -Logfile is screen's one long option.
    const x = words.findIndex((word) => word.value === '-X');
    const parsed = parseArguments(x === -1 ? words : words.slice(0, x), { short: 'cehpSTs', stopAtOperand: true });
    for (const file of parsed.values('-c')) context.file('execute', file, 'screen -c configuration (it can run commands)');
    if (x !== -1) {
      const command = words.slice(x + 1);
      if (command.length > 0) context.dynamic('execute', command.map((word) => word.value ?? word.text).join(' '), 'interpreter_code', 'screen -X (a command for a running screen)');
      return;
    }
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

export const DETACHED_RUNNERS: Record<string, CommandConvention> = {
  tmux: TMUX,
  screen: SCREEN,
  at: AT,
  batch: AT,
};
