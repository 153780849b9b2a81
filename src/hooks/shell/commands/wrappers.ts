import { parseArguments, staticWord, type OptionSyntax } from '../argument-parser.js';
import type { CommandContext, CommandConvention, RunChanges } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { reportEnvironment, type EnvironmentAssignment } from './environment.js';
import { codeFromStdin } from './shells.js';
import { packageCommand, reportConfigWrites, reportPackaging } from './package-publishing.js';
import { followPackageScripts } from './package-scripts.js';
import { argumentsOf, DOTENV_FILE, reportEach, reportEnvFiles, runtimeInput, shellJoin } from './operands.js';
import { UNKNOWN_PROGRAM } from './unknown-program.js';

/**
 * Wrappers start another program with the rest of their words: `sudo env X=1 timeout 5 cat f`
 * is `cat f`. Each is peeled (its own options skipped by its own conventions) and the inner
 * command analyzed as if it stood alone. Some change where or how it runs: `env -C dir`,
 * `sudo -D dir` move it, and `env HOME=…`, `sudo` give it another HOME.
 */

/** A wrapper whose options end at the first operand, which starts the inner command. */
function simpleWrapper(syntax: OptionSyntax, options: { skipOperands?: number; changes?: (parsed: ReturnType<typeof parseArguments>) => RunChanges; writeOptions?: readonly string[] } = {}): CommandConvention {
  return {
    wrapper: true,
    handler(context) {
      const parsed = parseArguments(argumentsOf(context), { ...syntax, stopAtOperand: true });
      reportEach(context, 'write', parsed.values(...(options.writeOptions ?? [])), `${context.program} output file`);
      const inner = parsed.operands.slice(options.skipOperands ?? 0);
      if (inner.length > 0) context.run(inner, options.changes?.(parsed) ?? {});
    },
  };
}

/**
 * `NAME=value` before the command of env (or sudo): env takes every operand holding a `=` as an
 * assignment, whatever the name, so `env 'BASH_FUNC_ls%%=() { cat .env; }' bash -c ls` exports a
 * function no shell assignment could.
 */
function environmentAssignment(word: Word | undefined): EnvironmentAssignment | undefined {
  const value = word?.value;
  const equals = value?.indexOf('=') ?? -1;
  if (value === undefined || equals <= 0) return undefined;
  return { name: value.slice(0, equals), value: staticWord(value.slice(equals + 1)) };
}

/** env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]… [COMMAND [ARG]…] */
const ENV: CommandConvention = {
  wrapper: true,
  handler(context) {
    const words = argumentsOf(context);
    // --block-signal, --default-signal and --ignore-signal take their signals only after `=`.
    const parsed = parseArguments(words, { short: 'uCS', long: ['unset', 'chdir', 'split-string'], stopAtOperand: true });
    let homeReassigned = false;
    let index = 0;
    const operands = parsed.operands;
    const assignments: EnvironmentAssignment[] = [];
    for (; index < operands.length; index += 1) {
      const assignment = environmentAssignment(operands[index]);
      if (assignment === undefined) break;
      if (assignment.name === 'HOME') homeReassigned = true;
      assignments.push(assignment);
    }
    reportEnvironment(context, assignments);
    if (parsed.has('-i', '--ignore-environment', '-') || parsed.values('-u', '--unset').some((word) => word.value === 'HOME')) homeReassigned = true;
    const changes: RunChanges = { homeReassigned };
    const directory = parsed.last('-C', '--chdir');
    if (directory !== undefined) changes.cwd = directory;
    const split = parsed.last('-S', '--split-string');
    const inner = operands.slice(index);
    if (split !== undefined) {
      // -S splits one string into words (quotes and escapes as in a shell, roughly).
      const line = [split.value ?? split.text, shellJoin(inner)].join(' ');
      context.script(line, 'env -S', { homeReassigned });
      return;
    }
    if (inner.length > 0) context.run(inner, changes);
  },
};

/** sudo runs the command as another user, with that user's HOME unless told to keep it. */
const SUDO: CommandConvention = {
  wrapper: true,
  handler(context) {
    // `-h` alone is help; a host is glued to it.
    const parsed = parseArguments(argumentsOf(context), { short: 'ugCDprtTUcR', glued: 'h', long: ['user', 'group', 'close-from', 'chdir', 'prompt', 'role', 'type', 'command-timeout', 'other-user', 'login-class', 'chroot', 'host'], stopAtOperand: true });
    if (parsed.has('-e', '--edit')) {
      for (const file of parsed.operands) {
        context.file('read', file, 'sudo -e');
        context.file('write', file, 'sudo -e');
      }
      return;
    }
    if (parsed.has('-l', '--list', '-v', '--validate', '-k', '--reset-timestamp', '-K', '--remove-timestamp', '-V', '--version')) return;
    const changes: RunChanges = { homeReassigned: true };
    const directory = parsed.last('-D', '--chdir');
    if (directory !== undefined) changes.cwd = directory;
    // -i runs a login shell: the command starts in the target user's home, which is not known here.
    if (parsed.has('-i', '--login')) changes.cwd = { value: undefined, text: '~target-user', reason: 'variable' };
    // `sudo NAME=value cmd` sets variables for cmd, as env does (where the sudoers policy lets it).
    const assignments: EnvironmentAssignment[] = [];
    for (const word of parsed.operands) {
      const assignment = environmentAssignment(word);
      if (assignment === undefined) break;
      assignments.push(assignment);
    }
    reportEnvironment(context, assignments);
    const inner = parsed.operands.slice(assignments.length);
    if (inner.length > 0) context.run(inner, changes);
  },
};

/** xargs runs its command with words read from standard input: those words are dynamic. */
const XARGS: CommandConvention = {
  wrapper: true,
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), {
      // -i[R], -e[EOF], -l[N] and --replace, --eof, --max-lines take their value only glued or after `=`.
      short: 'ILnPsdEa',
      glued: 'iel',
      long: ['max-args', 'max-procs', 'max-chars', 'delimiter', 'arg-file', 'process-slot-var'],
      stopAtOperand: true,
    });
    reportEach(context, 'read', parsed.values('-a', '--arg-file'), 'xargs --arg-file');
    const command = parsed.operands.length > 0 ? [...parsed.operands] : [staticWord('echo')];
    const input = runtimeInput('(xargs input)');
    const replace = parsed.last('-I', '--replace', '-i')?.value ?? (parsed.has('-i', '--replace') ? '{}' : undefined);
    let argv: Word[];
    if (replace !== undefined) {
      argv = command.map((word, index): Word => (index > 0 && word.value !== undefined && word.value.includes(replace) ? { value: undefined, text: word.value.replaceAll(replace, '(xargs input)'), reason: 'command_substitution' } : word));
    } else {
      argv = [...command, input];
    }
    // GNU xargs gives the command /dev/null as standard input.
    context.run(argv, { stdin: { kind: 'text', from: 'pipe', text: '' } });
  },
};

/** `command -v x` only looks a name up; `command x` runs it. */
const COMMAND: CommandConvention = {
  wrapper: true,
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { stopAtOperand: true });
    if (parsed.has('-v', '-V')) return;
    if (parsed.operands.length > 0) context.run(parsed.operands);
  },
};

/** watch runs its command through `sh -c` every few seconds (`-x`: directly). */
const WATCH: CommandConvention = {
  wrapper: true,
  handler(context) {
    // -d[permanent] takes only a glued value, --differences one after `=`, and --precise is a flag.
    const parsed = parseArguments(argumentsOf(context), { short: 'nq', glued: 'd', long: ['interval', 'equexit'], stopAtOperand: true });
    const [first, ...rest] = parsed.operands;
    if (first === undefined) return;
    if (parsed.has('-x', '--exec')) context.run(parsed.operands);
    else if (rest.length === 0) runCode(context, first, 'watch');
    else context.script(shellJoin(parsed.operands), 'watch');
  },
};

/** flock [options] FILE COMMAND… | flock [options] FILE -c STRING | flock [options] FD */
const FLOCK: CommandConvention = {
  wrapper: true,
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'wEc', long: ['timeout', 'conflict-exit-code', 'command'], stopAtOperand: true });
    const [lock, ...inner] = parsed.operands;
    if (lock !== undefined && !(lock.value !== undefined && /^\d+$/.test(lock.value))) context.file('write', lock, 'flock lock file');
    for (const code of parsed.values('-c', '--command')) runCode(context, code, 'flock -c');
    // `flock FILE -c STRING`, the documented order: -c after the lock file.
    const first = inner[0]?.value;
    if ((first === '-c' || first === '--command') && inner[1] !== undefined) runCode(context, inner[1], 'flock -c');
    else if (inner.length > 0) context.run(inner);
  },
};

/** su [-] [user] [-c command]: only the command given with -c is known. */
const SU: CommandConvention = {
  wrapper: true,
  handler(context) {
    const words = argumentsOf(context);
    const parsed = parseArguments(words, { short: 'cgGsw', long: ['command', 'group', 'supp-group', 'shell', 'whitelist-environment', 'session-command'] });
    // `su -`, `-l`, `--login`: a login shell, started in the target user's home (not known here).
    const login = parsed.has('-l', '--login') || words.some((word) => word.value === '-');
    for (const code of parsed.values('-c', '--command', '--session-command')) {
      if (login) context.dynamic('execute', code.value ?? code.text, code.value === undefined ? code.reason : 'variable', 'su login shell command (in the target user\'s home)');
      else runCode(context, code, 'su -c', true);
    }
  },
};

/** sg GROUP [-c] COMMAND: the command is shell code, run with another group. */
const SG: CommandConvention = {
  wrapper: true,
  handler(context) {
    const words = argumentsOf(context).filter((word) => word.value !== '-c' && word.value !== '-');
    const code = words[1];
    if (code !== undefined) runCode(context, code, 'sg command');
  },
};

/** Programs that run code given in a language of their own (expect's Tcl, GNU parallel's command lines): code known only at run time. */
const CODE_RUNNER: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context);
    if (words.length > 0) context.dynamic('execute', words.map((word) => word.value ?? word.text).join(' '), 'interpreter_code', `${context.program} (runs commands of its own)`);
  },
};

/** script -c command [file]: runs the command and records the session into the file. */
const SCRIPT: CommandConvention = {
  wrapper: true,
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'cEIOBTm', long: ['command', 'echo', 'log-in', 'log-out', 'log-io', 'log-timing', 'logging-format', 'output-limit'] });
    const codes = parsed.values('-c', '--command');
    for (const code of codes) runCode(context, code, 'script -c');
    // Without -c, script starts $SHELL, which reads its commands from standard input.
    if (codes.length === 0 && context.stdin.kind !== 'inherited') codeFromStdin(context);
    reportEach(context, 'write', [...parsed.operands.slice(0, 1), ...parsed.values('-O', '--log-out', '-B', '--log-io', '-T', '--log-timing')], 'script typescript file');
  },
};

/** npm package names whose program has another name (`npx dotenv-cli` runs `dotenv`). */
const PACKAGE_PROGRAMS: Record<string, string> = { 'dotenv-cli': 'dotenv' };

/** The program a package runner starts for a package spec: `@scope/name@1.2` runs `name`. */
function packageProgram(word: Word): Word {
  if (word.value === undefined) return word;
  const name = word.value.replace(/(?<=.)@[^/]*$/, '').replace(/^@[^/]+\//, '');
  return staticWord((Object.hasOwn(PACKAGE_PROGRAMS, name) ? PACKAGE_PROGRAMS[name] : undefined) ?? name);
}

/**
 * npx, bunx, `npm exec`, `pnpm dlx|exec`, `yarn dlx|exec`: run a package's program with the rest
 * of the words (`npx dotenv -- printenv` is `dotenv -- printenv`); `-c` is shell code.
 */
function packageRunner(context: CommandContext, words: readonly Word[]): void {
  const parsed = parseArguments(words, { short: 'pc', long: ['package', 'call', 'registry', 'cache', 'userconfig', 'workspace', 'filter'], stopAtOperand: true });
  for (const code of parsed.values('-c', '--call')) runCode(context, code, `${context.program} --call`);
  const [name, ...rest] = parsed.operands;
  if (name !== undefined) context.run([packageProgram(name), ...rest]);
}

const PACKAGE_RUNNER: CommandConvention = { wrapper: true, handler: (context) => packageRunner(context, argumentsOf(context)) };

/** npm, pnpm, yarn: `exec`/`x`/`dlx` run a package's program, package.json scripts are followed, `publish`/`pack` read the package; everything gets the unknown-program heuristic. */
const PACKAGE_MANAGER: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context);
    followPackageScripts(context, words);
    const subcommand = words[0]?.value;
    if (subcommand === 'exec' || subcommand === 'x' || subcommand === 'dlx') packageRunner(context, words.slice(1));
    else if (subcommand === 'explore') {
      // `npm explore pkg -- cmd …`: the words after `--` are a command line for a shell.
      const dashes = words.findIndex((word) => word.value === '--');
      const command = dashes === -1 ? [] : words.slice(dashes + 1);
      if (command.some((word) => word.value === undefined)) context.dynamic('execute', command.map((word) => word.value ?? word.text).join(' '), 'variable', 'npm explore command');
      else if (command.length > 0) context.script(command.map((word) => word.value).join(' '), 'npm explore command');
    } else {
      const packaging = packageCommand(words);
      if (packaging !== undefined) reportPackaging(context, packaging);
      reportConfigWrites(context, words);
      UNKNOWN_PROGRAM.handler(context);
    }
  },
};

/**
 * dotenv (dotenv-cli): loads `.env` (or the `-e` files; `-c` adds `.env.local` and `.env.<env>`
 * files), then runs the command after it with those values, or prints one (`-p NAME`).
 */
const DOTENV: CommandConvention = {
  wrapper: true,
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'evp', stopAtOperand: true });
    const files = parsed.values('-e');
    if (files.length > 0) reportEach(context, 'read', files, 'dotenv -e');
    else reportEnvFiles(context, parsed.has('-c') ? ['.env', '.env.local', '.env.development', '.env.production', '.env.test', '.env.development.local', '.env.production.local', '.env.test.local'] : DOTENV_FILE, 'dotenv loads .env');
    if (parsed.operands.length > 0) context.run(parsed.operands);
  },
};

/** `--wd=dir` and the like: the inner command runs there. */
function directoryChange(directory: Word | undefined): RunChanges {
  return directory === undefined ? {} : { cwd: directory };
}

function runCode(context: CommandContext, code: Word, via: string, homeReassigned = false): void {
  if (code.value === undefined) context.dynamic('execute', code.text, code.reason, via);
  else context.script(code.value, via, { homeReassigned });
}

export const WRAPPERS: Record<string, CommandConvention> = {
  env: ENV,
  sudo: SUDO,
  doas: simpleWrapper({ short: 'uC' }, { changes: () => ({ homeReassigned: true }) }),
  timeout: simpleWrapper({ short: 'sk', long: ['signal', 'kill-after'] }, { skipOperands: 1 }),
  nice: {
    wrapper: true,
    handler(context) {
      // `nice -10 cmd` is an adjustment written like an option.
      const words = argumentsOf(context).filter((word) => !(word.value !== undefined && /^-\d+$/.test(word.value)));
      const parsed = parseArguments(words, { short: 'n', long: ['adjustment'], stopAtOperand: true });
      if (parsed.operands.length > 0) context.run(parsed.operands);
    },
  },
  nohup: simpleWrapper({}),
  setsid: simpleWrapper({}),
  unbuffer: simpleWrapper({}),
  caffeinate: simpleWrapper({ short: 'tw' }),
  stdbuf: simpleWrapper({ short: 'ioe', long: ['input', 'output', 'error'] }),
  ionice: simpleWrapper({ short: 'cnp', long: ['class', 'classdata', 'pid', 'pgid', 'uid'] }),
  chrt: simpleWrapper({ short: 'T', long: ['sched-runtime', 'sched-period', 'sched-deadline'] }, { skipOperands: 1 }),
  taskset: simpleWrapper({}, { skipOperands: 1 }),
  // nsenter's -r and -w take a value only attached (`-w/dir`): alone they are flags.
  // --root[=dir] and --wd[=dir] take their directory only after `=`.
  nsenter: simpleWrapper({ short: 'tSG', long: ['target', 'setuid', 'setgid'] }, { changes: (parsed) => directoryChange(parsed.last('--wd')) }),
  unshare: simpleWrapper({ long: ['map-user', 'map-group', 'propagation', 'setgroups', 'root', 'wd'] }, { changes: (parsed) => directoryChange(parsed.last('--wd')) }),
  chroot: {
    wrapper: true,
    handler(context) {
      // The command runs in the new root's `/`, and its paths are inside that root.
      const parsed = parseArguments(argumentsOf(context), { long: ['userspec', 'groups'], stopAtOperand: true });
      const [root, ...command] = parsed.operands;
      if (root === undefined || command.length === 0) return;
      if (root.value === '/') context.run(command, { cwd: root });
      else context.dynamic('execute', command.map((word) => word.value ?? word.text).join(' '), 'unsupported', `chroot ${root.value ?? root.text} (paths inside another root)`);
    },
  },
  time: simpleWrapper({ short: 'of', long: ['output', 'format'] }, { writeOptions: ['-o', '--output'] }),
  command: COMMAND,
  builtin: simpleWrapper({}),
  exec: simpleWrapper({ short: 'a' }),
  coproc: simpleWrapper({}),
  strace: simpleWrapper({ short: 'oepsuEPIOSXb', long: ['output', 'trace', 'signal', 'attach', 'string-limit', 'user', 'env', 'trace-path'] }, { writeOptions: ['-o', '--output'] }),
  ltrace: simpleWrapper({ short: 'oepsuEnaAlxX', long: ['output', 'indent', 'align', 'library'] }, { writeOptions: ['-o', '--output'] }),
  valgrind: simpleWrapper({}),
  xargs: XARGS,
  watch: WATCH,
  flock: FLOCK,
  su: SU,
  runuser: {
    wrapper: true,
    handler(context) {
      // `runuser -u user [--] command args` runs the command itself; otherwise runuser is su.
      const parsed = parseArguments(argumentsOf(context), { short: 'cgGsuw', long: ['command', 'group', 'supp-group', 'shell', 'user', 'whitelist-environment', 'session-command'] });
      if (parsed.has('-u', '--user') && parsed.operands.length > 0) context.run(parsed.operands, { homeReassigned: true });
      else SU.handler(context);
    },
  },
  sg: SG,
  expect: CODE_RUNNER,
  parallel: CODE_RUNNER,
  // Wrappers that run their operands as a command, after options of their own.
  setpriv: simpleWrapper({ long: ['reuid', 'regid', 'groups', 'inh-caps', 'ambient-caps', 'bounding-set', 'securebits', 'pdeathsig', 'selinux-label', 'apparmor-profile', 'landlock-access', 'landlock-rule', 'ruid', 'euid', 'rgid', 'egid'] }),
  setarch: simpleWrapper({}, { skipOperands: 1 }),
  linux32: simpleWrapper({}),
  linux64: simpleWrapper({}),
  prlimit: simpleWrapper({ short: 'p', long: ['pid', 'output'] }),
  fakeroot: simpleWrapper({ short: 'lsi', long: ['lib', 'faked', 'save-file', 'load-file'] }),
  firejail: simpleWrapper({}),
  'dbus-run-session': simpleWrapper({ long: ['config-file', 'dbus-daemon'] }),
  pkexec: simpleWrapper({ long: ['user'] }),
  // systemd-run: the unit runs in --working-directory (or, for --user units, in the home directory).
  'systemd-run': simpleWrapper(
    { short: 'pEMu', long: ['unit', 'property', 'description', 'slice', 'setenv', 'working-directory', 'uid', 'gid', 'nice', 'on-active', 'on-boot', 'on-calendar', 'timer-property', 'machine', 'host', 'service-type'] },
    { changes: (parsed) => directoryChange(parsed.last('--working-directory') ?? (parsed.has('--user') ? { value: undefined, text: '~', reason: 'variable' } : undefined)) },
  ),
  script: SCRIPT,
  npx: PACKAGE_RUNNER,
  bunx: PACKAGE_RUNNER,
  pnpx: PACKAGE_RUNNER,
  npm: PACKAGE_MANAGER,
  pnpm: PACKAGE_MANAGER,
  yarn: PACKAGE_MANAGER,
  dotenv: DOTENV,
};
