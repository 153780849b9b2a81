import { posix } from 'node:path';

/**
 * Programs that read commands from their terminal. When a runtime can type into a command's
 * terminal after it started (Codex's `write_stdin` fires no hook; Copilot's `write_bash` text is
 * judged as bash whatever program reads it), starting one of these hands the agent a prompt whose
 * input no hook sees as what it is: `ssh host` then `cat ~/.aws/credentials` typed into it, `vim`
 * then `:r .env`, `sqlite3 db` then `.shell cat .env`. The shell analysis already treats a bare
 * `bash`, `python3` or `node` as code read from standard input; this list covers the rest.
 *
 * Each entry says when the program does NOT take commands from its terminal (a script operand,
 * `-c`, `--batch`, ...): a false positive costs an approval, a false negative a secret, so an
 * argument list this does not understand counts as interactive.
 */

type InteractiveTest = (args: readonly string[]) => boolean;

const always: InteractiveTest = () => true;

/** Interactive unless one of `flags` (or a short-option cluster holding one of `letters`) is given. */
function unlessFlag(flags: readonly string[], letters = ''): InteractiveTest {
  return (args) => !args.some((arg) => flags.includes(arg) || flags.some((flag) => flag.startsWith('--') && arg.startsWith(`${flag}=`)) || (letters !== '' && /^-[A-Za-z]+$/.test(arg) && [...arg.slice(1)].some((letter) => letters.includes(letter))));
}

/** Interactive unless it is given an operand (a script, a command) or one of `flags`; `valued` options take the next word. */
function unlessOperandOr(flags: readonly string[], valued: readonly string[] = []): InteractiveTest {
  return (args) => {
    for (let index = 0; index < args.length; index += 1) {
      const arg = args[index] as string;
      if (flags.includes(arg)) return false;
      if (valued.includes(arg)) {
        index += 1;
        continue;
      }
      if (arg === '--') return index + 1 >= args.length;
      if (!arg.startsWith('-')) return false;
    }
    return true;
  };
}

/** `docker exec -it c sh`, `kubectl exec -i pod -- sh`: a terminal inside a container is a shell of its own. */
const withStdinFlag: InteractiveTest = (args) => args.some((arg) => arg === '--interactive' || arg === '--stdin' || arg === '--tty' || /^-[A-Za-z]*[it][A-Za-z]*$/.test(arg));

const containerTools: InteractiveTest = (args) => {
  const verb = args.find((arg) => !arg.startsWith('-'));
  return (verb === 'exec' || verb === 'run' || verb === 'attach' || verb === 'debug' || verb === 'start') && withStdinFlag(args);
};

const python: InteractiveTest = (args) => {
  if (args.includes('-i')) return true;
  const module = args.indexOf('-m');
  // `python -m pdb x.py` and `python -m code` are prompts; `python -m http.server` is not.
  if (module >= 0) return ['pdb', 'code', 'IPython', 'asyncio', 'idlelib'].includes(args[module + 1] ?? '');
  return unlessOperandOr(['-c'], ['-W', '-X', '-Q'])(args);
};

const INTERACTIVE: ReadonlyMap<string, InteractiveTest> = new Map<string, InteractiveTest>([
  // Shells and interpreters the shell analysis does not already treat as reading code from stdin.
  ['irb', always],
  ['pry', always],
  ['ipython', unlessOperandOr(['-c'])],
  ['php', (args) => args.includes('-a')],
  ['lua', unlessOperandOr(['-e'])],
  ['luajit', unlessOperandOr(['-e'])],
  ['R', unlessFlag(['-f', '--file', '-e'])],
  ['julia', unlessOperandOr(['-e', '--eval', '-E', '--print'])],
  ['ghci', always],
  ['scala', unlessOperandOr(['-e'])],
  ['sbt', unlessOperandOr([])],
  ['clj', unlessOperandOr(['-e', '-M', '-X', '-T'])],
  ['clojure', unlessOperandOr(['-e', '-M', '-X', '-T'])],
  ['erl', unlessFlag(['-noshell', '-eval', '-s', '-run'])],
  ['iex', always],
  ['guile', unlessOperandOr(['-c', '-s'])],
  ['racket', unlessOperandOr(['-e'])],
  ['sbcl', unlessFlag(['--script', '--non-interactive', '--eval'])],
  ['ocaml', unlessOperandOr([])],
  ['swift', (args) => args.length === 0 || args[0] === 'repl'],
  ['jshell', unlessOperandOr([])],
  ['groovysh', always],
  ['tclsh', unlessOperandOr([])],
  ['wish', unlessOperandOr([])],
  ['expect', unlessOperandOr(['-c'])],
  ['deno', (args) => args.length === 0 || args[0] === 'repl'],
  ['bun', (args) => args[0] === 'repl'],
  ['pdb', always],
  // Databases: their prompts run shell commands (`.shell`, `\!`, `system`).
  ['sqlite3', (args) => args.filter((arg) => !arg.startsWith('-')).length < 2],
  ['duckdb', (args) => !args.includes('-c') && args.filter((arg) => !arg.startsWith('-')).length < 2],
  ['psql', unlessFlag(['-c', '--command', '-f', '--file', '-l', '--list'])],
  ['mysql', unlessFlag(['-e', '--execute'])],
  ['mariadb', unlessFlag(['-e', '--execute'])],
  ['redis-cli', unlessOperandOr([], ['-h', '-p', '-a', '-n', '-u', '-s', '--user', '--pass', '--tls'])],
  ['mongo', unlessFlag(['--eval'])],
  ['mongosh', unlessFlag(['--eval', '--file', '-f'])],
  ['cqlsh', unlessFlag(['-e', '--execute', '-f', '--file'])],
  ['clickhouse-client', unlessFlag(['-q', '--query', '--queries-file'])],
  // Debuggers.
  ['gdb', unlessFlag(['-batch', '--batch'])],
  ['lldb', unlessFlag(['-b', '--batch'])],
  ['jdb', always],
  ['dlv', always],
  ['r2', unlessFlag(['-q'])],
  ['radare2', unlessFlag(['-q'])],
  // Remote prompts: what is typed there runs on the other side, where svc sees nothing.
  ['ssh', (args) => hostIndex(args) === args.length - 1 || args.some((arg) => /^-[A-Za-z]*t[A-Za-z]*$/.test(arg))],
  ['mosh', always],
  ['telnet', always],
  ['ftp', always],
  ['lftp', unlessFlag(['-c', '-f', '-e'])],
  ['sftp', unlessFlag(['-b'])],
  ['tftp', always],
  ['socat', (args) => args.some((arg) => /(?:^|[,!])(?:EXEC|SYSTEM|PTY)[:,]?/i.test(arg))],
  ['nc', (args) => args.some((arg) => arg === '-e' || arg === '-c' || /^-[A-Za-z]*[ec]$/.test(arg))],
  ['ncat', (args) => args.some((arg) => arg === '-e' || arg === '-c' || arg === '--exec' || arg === '--sh-exec')],
  ['docker', containerTools],
  ['podman', containerTools],
  ['nerdctl', containerTools],
  ['kubectl', containerTools],
  ['oc', containerTools],
  ['lxc', containerTools],
  // Terminals and multiplexers: `tmux send-keys` types into a pane as `write_bash` would.
  ['script', unlessFlag(['-c', '--command'])],
  ['tmux', (args) => !args.includes('-V') && !/^(?:ls|list-\w+|has-session|has|kill-\w+|show-\w+|display-message)$/.test(args.find((arg) => !arg.startsWith('-')) ?? '')],
  ['screen', (args) => !args.some((arg) => arg === '-ls' || arg === '-list' || arg === '-wipe')],
  ['zellij', always],
  ['byobu', always],
  ['dtach', always],
  ['abduco', always],
  // Users and logins: a new shell prompt.
  ['su', unlessFlag(['-c', '--command'])],
  ['sudo', (args) => args.some((arg) => arg === '-i' || arg === '-s' || arg === '--login' || arg === '--shell') || args.every((arg) => arg.startsWith('-'))],
  ['doas', (args) => args.includes('-s') || args.every((arg) => arg.startsWith('-'))],
  ['runuser', unlessFlag(['-c', '--command'])],
  ['login', always],
  ['newgrp', always],
  ['machinectl', (args) => args[0] === 'shell' || args[0] === 'login'],
  // Pagers and editors: `!cmd`, `:r file`, `:!cmd`, `M-x shell`.
  ['less', always],
  ['more', always],
  ['most', always],
  ['pg', always],
  ['man', always],
  ['info', always],
  ['vi', always],
  ['vim', unlessFlag(['-es', '-Es', '--version', '-h', '--help'])],
  ['nvim', unlessFlag(['--headless', '-es', '-Es', '--version', '-h', '--help'])],
  ['view', always],
  ['vimdiff', always],
  ['ex', always],
  ['ed', always],
  ['nano', always],
  ['pico', always],
  ['micro', always],
  ['joe', always],
  ['emacs', unlessFlag(['--batch', '-batch', '--script', '--version'])],
  ['mc', always],
  ['ranger', always],
  ['nnn', always],
  ['vifm', always],
]);

const SSH_VALUED_OPTIONS = new Set(['-B', '-b', '-c', '-D', '-E', '-e', '-F', '-I', '-i', '-J', '-L', '-l', '-m', '-O', '-o', '-P', '-p', '-Q', '-R', '-S', '-W', '-w']);

/** The index of ssh's destination among its arguments (options with a value skip theirs). */
function hostIndex(args: readonly string[]): number {
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (SSH_VALUED_OPTIONS.has(arg)) {
      index += 1;
      continue;
    }
    if (!arg.startsWith('-')) return index;
  }
  return args.length;
}

const PYTHON = /^(?:python|pypy)(?:[0-9]+(?:\.[0-9]+)*)?$/;

/** The program in `argv` (as the shell analysis reports it, wrappers peeled) when it reads commands from its terminal. */
export function interactiveProgram(argv: readonly string[]): string | undefined {
  const [program, ...args] = argv;
  if (program === undefined) return undefined;
  const name = posix.basename(program);
  if (PYTHON.test(name)) return python(args) ? name : undefined;
  const test = INTERACTIVE.get(name);
  return test?.(args) === true ? name : undefined;
}

/** Programs the shell analysis peels as wrappers even when no command follows (`su`, `sudo -i`, `script -q /dev/null`): found in the text itself. */
const SHELL_STARTING_WRAPPERS = new Set(['su', 'sudo', 'doas', 'script', 'runuser', 'login', 'newgrp', 'machinectl']);

/**
 * Wrappers that start a login shell when no command follows them, which the shell analysis
 * reports as no command at all. Each command position of the text (its start, and after `;`,
 * `&`, `|`, `(`, `{`, a newline, leading assignments skipped) is checked; quoting is ignored,
 * which can only find more.
 */
export function shellStartingWrapper(command: string): string | undefined {
  for (const segment of command.split(/[;&|(){}\n`]+/)) {
    const words = segment.trim().split(/\s+/).filter((word) => word !== '');
    let start = 0;
    while (start < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[start] as string)) start += 1;
    const program = words[start]?.replace(/["']/g, '');
    if (program === undefined || !SHELL_STARTING_WRAPPERS.has(posix.basename(program))) continue;
    const found = interactiveProgram([posix.basename(program), ...words.slice(start + 1).map((word) => word.replace(/["']/g, ''))]);
    if (found !== undefined) return found;
  }
  return undefined;
}
