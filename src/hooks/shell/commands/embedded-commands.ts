import { posix } from 'node:path';
import { parseArguments, staticWord } from '../argument-parser.js';
import type { CommandContext, CommandConvention } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { argumentsOf, reportEach, reportPathLikeArguments } from './operands.js';
import { codeFromStdin } from './shells.js';

/**
 * Programs that take commands of their own language in an argument and can open any file or
 * run any shell command with them: sqlite3's dot-commands and SQL functions, Vim's and Emacs's
 * command-line commands, make's `--eval` and variable overrides. Commands this analysis
 * understands are followed (`.shell cat .env` is parsed like `sh -c`, `.read f` reads f);
 * anything else that could reach a file is dynamic interpreter code, never "touches nothing".
 */

function code(context: CommandContext, word: Word, via: string): void {
  context.dynamic('execute', word.value ?? word.text, word.value === undefined ? word.reason : 'interpreter_code', via);
}

/** SQL that opens files or loads code: readfile(), writefile(), edit(), load_extension(), ATTACH, VACUUM INTO, the fileio virtual tables. */
const SQL_FILE_ACCESS = /\b(?:readfile|writefile|edit|load_extension|fsdir|lsmode)\s*\(|\battach\b|\bvacuum\b[\s\S]*\binto\b/i;

/** Dot-commands whose argument is a file read, written or loaded; others (`.tables`, `.mode`) touch none. */
const SQLITE_READ_COMMANDS = new Set(['.read', '.import', '.open', '.restore', '.clone']);
/** `.open F` creates and writes F as well; `.trace F` writes the statements it traces to F. */
const SQLITE_WRITE_COMMANDS = new Set(['.output', '.once', '.log', '.backup', '.save', '.excel', '.trace', '.open', '.clone']);
const SQLITE_CODE_COMMANDS = new Set(['.shell', '.system']);

/** One sqlite3 command argument (or `-cmd` value, or a heredoc of them): dot-commands per line, SQL otherwise. */
function sqliteCommands(context: CommandContext, word: Word, via: string): void {
  if (word.value === undefined) {
    code(context, word, via);
    return;
  }
  for (const line of word.value.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('.')) {
      if (SQL_FILE_ACCESS.test(trimmed)) code(context, staticWord(trimmed), `${via} (SQL that opens files)`);
      continue;
    }
    const [name = '', ...rest] = trimmed.split(/\s+/);
    const argument = rest.join(' ');
    if (SQLITE_CODE_COMMANDS.has(name)) {
      if (argument !== '') context.script(argument, `sqlite3 ${name}`);
    } else if (name === '.load') {
      // A shared library loaded into the process: code, whatever file it names.
      if (rest[0] !== undefined) {
        context.file('execute', staticWord(unquote(rest[0])), 'sqlite3 .load');
        code(context, staticWord(trimmed), 'sqlite3 .load (an extension runs native code)');
      }
    } else if (SQLITE_READ_COMMANDS.has(name) || SQLITE_WRITE_COMMANDS.has(name)) {
      // The file is the last word that is not an option (`.import --csv f t` imports f into t).
      const files = rest.filter((part) => !part.startsWith('-'));
      const file = name === '.import' ? files[0] : files[files.length - 1];
      // `.output '|cmd'`, `.read '|cmd'`, `.import '|cmd' t`: the command runs through a shell.
      if (file === undefined || ((SQLITE_WRITE_COMMANDS.has(name) || name === '.read' || name === '.import') && unquote(file).startsWith('|'))) {
        if (file !== undefined) context.script(unquote(file).slice(1), `sqlite3 ${name} pipe`);
        continue;
      }
      // `.trace`, `.log`, `.output` take `stdout`/`stderr`/`off` as well as a file.
      if (SQLITE_STREAMS.has(unquote(file)) && !SQLITE_READ_COMMANDS.has(name)) continue;
      for (const word of sqlitePaths(context, unquote(file))) {
        if (SQLITE_READ_COMMANDS.has(name)) context.file('read', word, `sqlite3 ${name}`);
        if (SQLITE_WRITE_COMMANDS.has(name)) context.file('write', word, `sqlite3 ${name}`);
        if (name === '.read') sqliteScriptFile(context, word, 'sqlite3 .read');
      }
    } else if (name === '.cd') {
      code(context, staticWord(trimmed), 'sqlite3 .cd');
    }
  }
}

/**
 * A file of sqlite3 commands (`-init f`, `.read f`, `sqlite3 db < f`): its dot-commands run too
 * (`.shell cat .env`), and this analysis does not read the file: dynamic code.
 */
function sqliteScriptFile(context: CommandContext, file: Word, via: string): void {
  context.dynamic('execute', file.value ?? file.text, file.value === undefined ? file.reason : 'interpreter_code', `${via} (sqlite3 commands in a file)`);
}

const SQLITE_STREAMS = new Set(['stdout', 'stderr', 'off']);

/** A file a dot-command names: the word as written and, for `~/…`, the same path in the home directory (the shell expands it). */
function sqlitePaths(context: CommandContext, text: string): Word[] {
  if (text !== '~' && !text.startsWith('~/')) return [staticWord(text)];
  if (context.home === undefined) {
    context.dynamic('write', text, 'interpreter_code', 'sqlite3 dot-command path in a reassigned home');
    return [staticWord(text)];
  }
  return [staticWord(text), staticWord(`${context.home.replace(/\/+$/, '')}${text.slice(1)}`)];
}

/**
 * `-A`/`--archive` mode: `-c`/`-u` (create, update) read the files named after the options and
 * store them in the archive; `-x` extracts members (named or all) under `-C DIR` or the working
 * directory: writes known only at run time; `-t` lists.
 */
function sqliteArchive(context: CommandContext, words: readonly Word[], archiveAt: number): void {
  const after = words.slice(archiveAt + 1);
  const parsed = parseArguments(after, { short: 'fC', long: ['file', 'directory', 'append'] });
  const flags = after.filter((word) => word.value !== undefined && /^-[a-zA-Z]+$/.test(word.value)).map((word) => word.value as string).join('');
  const long = (name: string) => after.some((word) => word.value === `--${name}`);
  for (const archive of parsed.values('-f', '--file', '--append')) {
    context.file('read', archive, 'sqlite3 -A archive');
    context.file('write', archive, 'sqlite3 -A archive');
  }
  const directory = parsed.last('-C', '--directory');
  if (/[cu]/.test(flags.replace(/^-/, '')) || long('create') || long('update') || long('insert')) {
    for (const member of parsed.operands) {
      const word = directory === undefined || member.value === undefined || member.value.startsWith('/') || directory.value === undefined ? member : staticWord(`${directory.value}/${member.value}`);
      context.file('read', word, 'sqlite3 -A (file stored in the archive)', { recursive: true });
    }
  }
  if (/x/.test(flags) || long('extract')) {
    context.dynamic('write', `${directory?.value ?? '.'}/*`, 'interpreter_code', 'sqlite3 -A -x (archive members extracted)');
  }
}

function unquote(text: string): string {
  return /^(['"]).*\1$/s.test(text) ? text.slice(1, -1) : text;
}

/** sqlite3 [options] [DATABASE] [COMMAND…]: the database is opened (read and written), each command run. */
const SQLITE3: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context);
    // `-A ARGS…` (`--archive`): the rest of the line is the archive command's.
    const archiveAt = words.findIndex((word) => word.value !== undefined && /^--?(?:A|archive)$|^-A[a-zA-Z]+$/.test(word.value));
    if (archiveAt >= 0) {
      const glued = words[archiveAt]?.value?.startsWith('-A') === true && (words[archiveAt]?.value?.length ?? 0) > 2 ? [staticWord(`-${(words[archiveAt]?.value as string).slice(2)}`)] : [];
      sqliteArchive(context, [...words.slice(0, archiveAt + 1), ...glued, ...words.slice(archiveAt + 1)], archiveAt);
    }
    const parsed = parseArguments(archiveAt >= 0 ? words.slice(0, archiveAt) : words, { singleDashLong: true, long: ['cmd', 'init', 'separator', 'newline', 'nullvalue', 'vfs', 'lookaside', 'pagecache', 'heap', 'maxsize', 'mmap', 'escape', 'pcachetrace'] });
    for (const init of parsed.values('-init', '--init')) {
      context.file('read', init, 'sqlite3 -init');
      sqliteScriptFile(context, init, 'sqlite3 -init');
    }
    for (const command of parsed.values('-cmd', '--cmd')) sqliteCommands(context, command, 'sqlite3 -cmd');
    const [database, ...commands] = parsed.operands;
    if (database !== undefined && database.value !== ':memory:' && database.value !== '') {
      context.file('read', database, 'sqlite3 database');
      if (!parsed.has('-readonly', '--readonly')) context.file('write', database, 'sqlite3 database');
    }
    for (const command of commands) sqliteCommands(context, command, 'sqlite3 command');
    if (commands.length > 0) return;
    const stdin = context.stdin;
    if (stdin.kind === 'text' && stdin.text !== undefined) sqliteCommands(context, staticWord(stdin.text), `sqlite3 reading a ${stdin.from}`);
    else if (stdin.kind === 'file') {
      context.file('read', stdin.word, 'sqlite3 commands from standard input');
      sqliteScriptFile(context, stdin.word, 'sqlite3 reading standard input');
    }
    else if (stdin.kind === 'text') code(context, staticWord(`${context.program} (commands from standard input)`), 'sqlite3 reading commands from standard input');
  },
};

/**
 * vi, vim, nvim, ex, view: the files are read (and may be written). `-c CMD`, `+CMD`, `--cmd CMD`
 * are Ex commands (`r .env`, `!cat .env`): interpreter code. `-S file` and `-u vimrc` are
 * scripts sourced; `-s file` feeds keystrokes. In Ex mode (`-e`, `-E`, `ex`) the commands come
 * from standard input.
 */
const VIM: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context);
    const commands = words.filter((word) => word.value === undefined ? word.text.startsWith('+') : word.value.startsWith('+'));
    const parsed = parseArguments(
      words.filter((word) => !commands.includes(word)),
      // `-s` takes a keystroke file only outside Ex mode (`-es` is silent Ex mode); -o, -O, -p, -V, -r take optional glued values.
      // `--headless`, `--embed`, `--clean` and `--api-info` are flags, and `--remote*` take the files that follow as operands.
      { short: 'cSuUwWiTt', long: ['cmd', 'startuptime', 'remote-send', 'remote-expr', 'servername', 'listen'] },
    );
    for (const command of [...commands, ...parsed.values('-c', '--cmd', '--remote-send', '--remote-expr')]) code(context, command, `${context.program} command`);
    for (const script of parsed.values('-S', '-u', '-U')) {
      if (script.value === 'NONE' || script.value === 'NORC' || script.value === 'DEFAULTS') continue;
      context.file('read', script, `${context.program} sourced script`);
      context.file('execute', script, `${context.program} sourced script`);
    }
    const exMode = context.program === 'ex' || parsed.has('-e', '-E');
    if (parsed.has('-s') && !exMode) code(context, staticWord(`${context.program} -s keystroke file`), `${context.program} -s keystrokes`);
    reportEach(context, 'write', parsed.values('-w', '-W'), `${context.program} -w keystroke log`);
    for (const file of parsed.operands) {
      context.file('read', file, `${context.program} file`);
      context.file('write', file, `${context.program} file`);
    }
    if (exMode) codeFromStdin(context, 'other');
  },
};

/** emacs: `--eval`/`-f` run Lisp, `-l`/`--load`/`--script` load a file of it; file operands are visited. */
const EMACS: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context).filter((word) => !(word.value !== undefined && /^\+\d+(?::\d+)?$/.test(word.value)));
    const parsed = parseArguments(words, { singleDashLong: true, long: ['eval', 'execute', 'load', 'l', 'funcall', 'f', 'script', 'x', 'insert', 'directory', 'chdir', 'L', 'user', 'u', 'init-directory', 'file', 'find-file', 'visit', 'dump-file', 'fg', 'bg', 'T', 'title', 'd', 'display'] });
    for (const lisp of parsed.values('--eval', '-eval', '--execute', '-execute', '-f', '--funcall', '-funcall')) code(context, lisp, 'emacs Lisp');
    for (const file of parsed.values('-l', '--load', '-load', '--script', '-script', '-x')) {
      context.file('read', file, 'emacs Lisp file');
      context.file('execute', file, 'emacs Lisp file');
    }
    reportEach(context, 'read', [...parsed.values('--insert', '-insert', '--file', '--find-file', '--visit'), ...parsed.operands], 'emacs file');
  },
};

/**
 * make: a makefile's recipes are shell code, so `-f FILE` is an execute of FILE and `--eval`
 * text is code. A `NAME=value` override replaces a variable its recipes expand (`make
 * CC='cat .env;'`): code when the value holds shell syntax. Other words get the heuristic.
 */
const DEFAULT_MAKEFILES = ['GNUmakefile', 'makefile', 'Makefile'];

const MAKE: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'fCIoWE', long: ['file', 'makefile', 'directory', 'include-dir', 'old-file', 'assume-old', 'what-if', 'new-file', 'assume-new', 'eval', 'jobserver-style'] });
    const makefiles = parsed.values('-f', '--file', '--makefile');
    // Without -f, make runs the first of GNUmakefile, makefile and Makefile in its directory:
    // one this line writes (`printf 'x:\n\tcat .env\n' > Makefile && make`) is code it wrote.
    const directory = parsed.last('-C', '--directory');
    // (A -C directory known only at run time is a dynamic path-like argument below.)
    if (makefiles.length === 0 && (directory === undefined || directory.value !== undefined)) {
      for (const name of DEFAULT_MAKEFILES) {
        const makefile = staticWord(directory?.value === undefined ? name : posix.join(directory.value, name));
        if (context.writtenEarlier(makefile)) context.file('execute', makefile, 'make (its default makefile)');
      }
    }
    for (const makefile of makefiles) {
      // A makefile on standard input holds recipes (shell code) in make's own syntax: code known only at run time.
      if (makefile.value === '-' || makefile.value === '/dev/stdin') codeFromStdin(context, 'other');
      else if (makefile.value !== '/dev/null') context.file('execute', makefile, 'make -f makefile');
    }
    for (const text of parsed.values('-E', '--eval')) code(context, text, 'make --eval');
    const targets: Word[] = [];
    for (const word of parsed.operands) {
      const equals = word.value?.indexOf('=') ?? -1;
      if (word.value !== undefined && equals > 0 && /[;&|`$()<>\s]/.test(word.value.slice(equals + 1))) code(context, word, 'make variable override');
      else targets.push(word);
    }
    reportPathLikeArguments(context, [...targets, ...parsed.values('-C', '--directory')], 'make argument');
  },
};

/**
 * man: its pager (`-P`, `--pager`) and browser (`--html=`) are shell commands it runs on the
 * page; `-l`/`--local-file` makes the operands files it formats and shows, as is an operand with
 * a slash (`man ./x.1`); `-C` reads a configuration file. Other operands are page names.
 */
const MAN: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'CMPrLmepREsS', long: ['config-file', 'manpath', 'pager', 'prompt', 'locale', 'systems', 'extension', 'preprocessor', 'recode', 'encoding', 'sections', 'html'] });
    for (const command of parsed.values('-P', '--pager', '--html')) {
      if (command.value === undefined) code(context, command, 'man pager');
      else context.script(command.value, 'man pager');
    }
    reportEach(context, 'read', parsed.values('-C', '--config-file'), 'man -C configuration file');
    const local = parsed.has('-l', '--local-file');
    for (const operand of parsed.operands) if (local || operand.value === undefined || operand.value.includes('/')) context.file('read', operand, 'man file');
  },
};

/** gdb: its commands (`-ex`, `-iex`, `-x file`, or on standard input) can run a shell (`shell cat .env`) and read any file. */
const GDB: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'xpcd', singleDashLong: true, long: ['ex', 'iex', 'eval-command', 'init-eval-command', 'command', 'init-command', 'x', 'ix', 'cd', 'directory', 'p', 'pid', 'core', 'c', 'se', 'symbols', 'exec', 'e', 'data-directory'] });
    for (const command of parsed.values('-ex', '-iex', '--eval-command', '-eval-command', '--init-eval-command', '-init-eval-command')) code(context, command, 'gdb command');
    for (const file of parsed.values('-x', '-ix', '--command', '-command', '--init-command', '-init-command')) {
      context.file('read', file, 'gdb command file');
      code(context, file, 'gdb command file');
    }
    if (parsed.has('-batch', '--batch') && context.stdin.kind !== 'inherited') context.dynamic('execute', 'gdb (commands from standard input)', 'interpreter_code', 'gdb commands');
    reportPathLikeArguments(context, parsed.operands, 'gdb argument');
  },
};

export const EMBEDDED_COMMANDS: Record<string, CommandConvention> = {
  man: MAN,
  gdb: GDB,
  sqlite3: SQLITE3,
  sqlite: SQLITE3,
  vi: VIM,
  vim: VIM,
  nvim: VIM,
  view: VIM,
  ex: VIM,
  rvim: VIM,
  gvim: VIM,
  vimdiff: VIM,
  nvi: VIM,
  emacs: EMACS,
  make: MAKE,
  gmake: MAKE,
};
