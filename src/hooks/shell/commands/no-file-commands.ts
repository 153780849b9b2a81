import type { CommandConvention } from '../command-context.js';

/**
 * Programs and builtins that open no file named by their arguments: they print, compute, look
 * names up, or read metadata only (ls, stat, du, test). Listing them keeps the unknown-program
 * heuristic from taking `echo ./build` or `ls .ssh` for a read. Their redirections and
 * substitutions are still followed, like anyone's.
 */
const NOTHING: CommandConvention = { handler: () => undefined };

const NAMES = [
  'echo', 'printf', 'true', 'false', ':', 'pwd', 'ls', 'dir', 'vdir', 'tree', 'exa', 'eza', 'lsd', 'which', 'type', 'whereis', 'whoami', 'id', 'groups', 'date', 'sleep',
  'exit', 'return', 'set', 'shopt', 'shift', 'unalias', 'read', 'readarray', 'mapfile', 'test', '[', 'kill', 'killall', 'pkill', 'pgrep', 'jobs', 'wait', 'bg', 'fg',
  'disown', 'hash', 'history', 'clear', 'reset', 'basename', 'dirname', 'realpath', 'readlink', 'stat', 'du', 'df', 'ps', 'top', 'htop', 'uname', 'hostname', 'seq', 'yes',
  'tput', 'mktemp', 'tr', 'expr', 'let', 'getopts', 'umask', 'ulimit', 'printenv', 'locale', 'nproc', 'free', 'uptime', 'cal', 'lsof', 'netstat', 'ss', 'ping', 'host',
  'dig', 'nslookup', 'logname', 'tty', 'stty', 'sync', 'arch', 'sw_vers', 'lsblk', 'break', 'continue', 'times', 'caller', 'compgen', 'complete', 'dirs', 'help',
  'logout', 'suspend', 'declare', 'typeset', 'local', 'export', 'readonly', 'unset', 'whatis', 'apropos', 'factor', 'numfmt', 'last', 'w', 'who', 'users', 'vmstat',
  'iostat', 'notify-send', 'say',
];

export const NO_FILE_COMMANDS: Record<string, CommandConvention> = Object.fromEntries(NAMES.map((name) => [name, NOTHING]));
