import { parseArguments, type OptionSyntax } from '../argument-parser.js';
import type { CommandContext, CommandConvention } from '../command-context.js';
import { argumentsOf, reportEach } from './operands.js';

/**
 * Programs and builtins that open no file named by their operands: they print, compute, look
 * names up, or read metadata only (ls, stat, du, test). Listing them keeps the unknown-program
 * heuristic from taking `echo ./build` or `ls .ssh` for a read. Their redirections and
 * substitutions are still followed, like anyone's.
 *
 * A few of them do open a file named by an option, and print what they found in it
 * (`date -f .env` prints each line in an "invalid date" error; `history -r .env; history`
 * lists it): those options are in FILE_OPTIONS below, and are reads or writes like anyone's.
 */
const NOTHING: CommandConvention = { handler: () => undefined };

const NAMES = [
  'echo', 'printf', 'true', 'false', ':', 'pwd', 'ls', 'dir', 'vdir', 'exa', 'eza', 'lsd', 'which', 'type', 'whereis', 'whoami', 'id', 'groups', 'sleep',
  'exit', 'return', 'set', 'shopt', 'shift', 'unalias', 'read', 'readarray', 'mapfile', 'test', '[', 'kill', 'killall', 'jobs', 'wait', 'bg', 'fg',
  'disown', 'hash', 'clear', 'reset', 'basename', 'dirname', 'realpath', 'readlink', 'stat', 'df', 'ps', 'top', 'htop', 'uname', 'seq', 'yes',
  'tput', 'mktemp', 'tr', 'expr', 'let', 'getopts', 'umask', 'ulimit', 'printenv', 'locale', 'nproc', 'free', 'uptime', 'cal', 'lsof', 'netstat', 'ping', 'host',
  'nslookup', 'logname', 'tty', 'stty', 'sync', 'arch', 'sw_vers', 'lsblk', 'break', 'continue', 'times', 'caller', 'complete', 'dirs', 'help',
  'logout', 'suspend', 'declare', 'typeset', 'local', 'export', 'readonly', 'unset', 'factor', 'numfmt', 'w', 'vmstat', 'iostat', 'notify-send',
];

interface FileOptions {
  syntax: OptionSyntax;
  /** Options whose value is a file the program reads. */
  reads?: readonly string[];
  /** Options whose value is a file the program writes. */
  writes?: readonly string[];
  /** Options that make every operand a file read (`history -r FILE`, `tree --fromfile FILE…`). */
  readOperandsWith?: readonly string[];
  /** Options that make every operand a file written (`history -w FILE`). */
  writeOperandsWith?: readonly string[];
  /** Operands are files read (`who FILE`, `users FILE`: a login records file). */
  readOperands?: boolean;
}

function fileOptions(spec: FileOptions): CommandConvention {
  return {
    handler(context) {
      const parsed = parseArguments(argumentsOf(context), spec.syntax);
      const via = `${context.program} option file`;
      for (const option of spec.reads ?? []) reportEach(context, 'read', parsed.values(option), `${context.program} ${option}`);
      for (const option of spec.writes ?? []) reportEach(context, 'write', parsed.values(option), `${context.program} ${option}`);
      if (spec.readOperands || parsed.has(...(spec.readOperandsWith ?? []))) reportEach(context, 'read', parsed.operands, via);
      else if (parsed.has(...(spec.writeOperandsWith ?? []))) reportEach(context, 'write', parsed.operands, via);
    },
  };
}

/** `--files0-from F` (du, and wc/sort in file-readers.ts): F lists the files to work on. */
const FILE_OPTIONS: Record<string, CommandConvention> = {
  date: fileOptions({ syntax: { short: 'dfrI', long: ['date', 'file', 'reference', 'iso-8601', 'rfc-3339', 'resolution'] }, reads: ['-f', '--file'] }),
  // `history -r/-n FILE` loads FILE into the history that `history` then prints; `-a/-w FILE` write it.
  history: fileOptions({ syntax: { short: 'd' }, readOperandsWith: ['-r', '-n'], writeOperandsWith: ['-a', '-w'] }),
  du: fileOptions({ syntax: { short: 'BdtX', long: ['block-size', 'max-depth', 'threshold', 'exclude-from', 'exclude', 'files0-from', 'time', 'time-style'] }, reads: ['-X', '--exclude-from', '--files0-from'] }),
  ss: fileOptions({ syntax: { short: 'FNADfS', long: ['filter', 'net', 'query', 'socket', 'diag', 'family', 'kill'] }, reads: ['-F', '--filter'], writes: ['-D', '--diag'] }),
  apropos: fileOptions({ syntax: { short: 'CLmMs', long: ['config-file', 'locale', 'systems', 'manpath', 'sections', 'section'] }, reads: ['-C', '--config-file'] }),
  whatis: fileOptions({ syntax: { short: 'CLmMs', long: ['config-file', 'locale', 'systems', 'manpath', 'sections', 'section'] }, reads: ['-C', '--config-file'] }),
  // tree prints names only, but `--fromfile` lists the lines of its operands, and `--infofile` prints comments found in that file.
  tree: fileOptions({
    syntax: { short: 'PILoHT', long: ['filelimit', 'timefmt', 'sort', 'charset', 'infofile', 'gitfile', 'hintro', 'houtro', 'filesfrom'] },
    reads: ['--infofile', '--gitfile', '--hintro', '--houtro'],
    writes: ['-o'],
    readOperandsWith: ['--fromfile'],
  }),
  dig: fileOptions({ syntax: { short: 'bcfkpqtxy' }, reads: ['-f', '-k'] }),
  hostname: fileOptions({ syntax: { short: 'F', long: ['file'] }, reads: ['-F', '--file'] }),
  last: fileOptions({ syntax: { short: 'fnstip', long: ['file', 'limit', 'since', 'until', 'time-format', 'present'] }, reads: ['-f', '--file'] }),
  lastb: fileOptions({ syntax: { short: 'fnstip', long: ['file', 'limit', 'since', 'until', 'time-format', 'present'] }, reads: ['-f', '--file'] }),
  who: fileOptions({ syntax: {}, readOperands: true }),
  users: fileOptions({ syntax: {}, readOperands: true }),
  pgrep: fileOptions({ syntax: { short: 'dgGPsuUtF', long: ['delimiter', 'pgroup', 'group', 'parent', 'session', 'euid', 'uid', 'terminal', 'pidfile', 'ns', 'nslist', 'signal'] }, reads: ['-F', '--pidfile'] }),
  pkill: fileOptions({ syntax: { short: 'gGPsuUtF', long: ['pgroup', 'group', 'parent', 'session', 'euid', 'uid', 'terminal', 'pidfile', 'ns', 'nslist', 'signal'] }, reads: ['-F', '--pidfile'] }),
  // macOS say speaks a file (`-f`) and writes audio (`-o`).
  say: fileOptions({ syntax: { short: 'vrofai', long: ['voice', 'rate', 'output-file', 'input-file', 'audio-device', 'file-format', 'data-format', 'channels', 'bit-rate', 'quality'] }, reads: ['-f', '--input-file'], writes: ['-o', '--output-file'] }),
};

/** `compgen -C CMD` runs CMD to produce its completions, right now (`complete -C` only when completing, in an interactive shell). */
const COMPGEN: CommandConvention = {
  handler(context: CommandContext) {
    const parsed = parseArguments(argumentsOf(context), { short: 'oAGWFCXPSV' });
    for (const code of parsed.values('-C')) {
      if (code.value === undefined) context.dynamic('execute', code.text, code.reason, 'compgen -C');
      else context.script(code.value, 'compgen -C');
    }
  },
};

export const NO_FILE_COMMANDS: Record<string, CommandConvention> = { ...Object.fromEntries(NAMES.map((name) => [name, NOTHING])), ...FILE_OPTIONS, compgen: COMPGEN };
