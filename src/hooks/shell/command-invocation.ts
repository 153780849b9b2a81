import { posix } from 'node:path';
import { staticWord } from './argument-parser.js';
import type { CommandContext, DirectoryChange, FileOptions, RunChanges, ScriptOptions, StdinSource } from './command-context.js';
import { reportEnvironment, type EnvironmentAssignment } from './commands/environment.js';
import { reportPrintedCredentials } from './commands/credential-printers.js';
import { conventionFor, UNKNOWN_PROGRAM } from './commands/registry.js';
import { cdpathInEffect, searchesCdpath } from './cdpath.js';
import { reportFile } from './file-reporting.js';
import { listedNameTest } from './listed-names.js';
import { globOptionsAfterBuiltin, globOptionsOfShellArguments } from './glob-options.js';
import { AnalysisLimitReached, UnanalyzableCommand } from './operation-log.js';
import { normalizeAbsolute, resolvePath } from './path-resolution.js';
import { codeRunFrom, fileVersion, type ScriptRunner } from './script-files.js';
import type { ScriptWalker } from './script-walker.js';
import type { DynamicReason, FileOperationKind } from './shell-analysis.js';
import { copyState, type ShellState } from './shell-state.js';
import type { Word } from './word-expansion.js';
import { eitherDirectory, enterDirectory, knownDirectory, type WorkingDirectory } from './working-directory.js';

interface InvocationOptions {
  homeReassigned: boolean;
  placeholder?: RunChanges['placeholder'];
  /**
   * Variables assigned for this command (`GIT_PAGER=… git log`), or by a statement of their own
   * (`export EDITOR=…`, then argv is empty): those that carry code or files are reported.
   */
  assignments?: readonly EnvironmentAssignment[];
}

/** One simple command being analyzed: the CommandContext its handler works with. */
export class InvocationContext implements CommandContext {
  readonly program: string;

  constructor(
    private readonly walker: ScriptWalker,
    private readonly state: ShellState,
    readonly argv: readonly Word[],
    readonly stdin: StdinSource,
    private readonly options: InvocationOptions,
  ) {
    const name = argv[0]?.value;
    this.program = name === undefined ? '' : posix.basename(name);
  }

  /** True when the program is looked up in a PATH the command line changed (`PATH=./b:$PATH x`, `export PATH=…`). */
  get pathChanged(): boolean {
    return this.state.pathChanged || (this.options.assignments ?? []).some((assignment) => assignment.name === 'PATH' && addsWorkingDirectories(assignment.value.text));
  }

  get home(): string | undefined {
    return this.options.homeReassigned ? undefined : this.state.home;
  }

  /** Reports the variables assigned with this command that carry code or files (commands/environment.ts). */
  reportAssignments(): void {
    const assignments = this.options.assignments;
    if (assignments !== undefined && assignments.length > 0) reportEnvironment(this, assignments);
  }

  /** Adds this command to the analysis' list of simple commands. */
  record(): void {
    this.walker.session.log.addCommand({ argv: this.argv.map((word) => word.value ?? word.text), dynamic: this.argv.some((word) => word.value === undefined) });
  }

  file(kind: FileOperationKind, word: Word, via: string, options: FileOptions = {}): void {
    const placeholder = this.options.placeholder;
    if (placeholder !== undefined && word.value === placeholder.token) {
      for (const root of placeholder.roots) reportFile(this.walker.session, this.state, kind, root, via, { ...options, recursive: true });
      return;
    }
    const paths = reportFile(this.walker.session, this.state, kind, word, via, options);
    if (kind === 'execute') for (const path of paths) this.runFile(path, via, options.runner);
  }

  /** Follows what running the file at `path` runs (script-files.ts). */
  private runFile(path: string, via: string, runner: ScriptRunner | undefined): void {
    const code = codeRunFrom(path, runner, this.walker.session);
    if (code.kind === 'opaque') return;
    if (code.kind === 'unknown') {
      this.dynamic('execute', path, 'interpreter_code', `${via}: ${code.why}${fileVersion(path)}`);
      return;
    }
    try {
      this.script(code.code, `${via} ${path}`, { sameShell: runner === 'same_shell' });
    } catch (error) {
      if (!(error instanceof UnanalyzableCommand) || error instanceof AnalysisLimitReached) throw error;
      // The command line itself is fine; a script it runs that cannot be followed to the end is
      // code known only when it runs, for policy to decide.
      this.dynamic('execute', path, 'interpreter_code', `${via}: a script svc cannot follow to the end (${error.message})${fileVersion(path)}`);
    }
  }

  dynamic(kind: FileOperationKind, text: string, reason: DynamicReason, via: string): void {
    this.walker.session.log.add({ kind, dynamic: { text, reason }, via });
  }

  kindOf(word: Word): 'file' | 'directory' | 'other' | undefined {
    const path = this.absolute(word);
    return path === undefined ? undefined : this.walker.session.probe.kind(path);
  }

  existing(words: readonly Word[]): Word[] {
    const probe = this.walker.session.probe;
    const paths = words.map((word) => this.absolute(word));
    const first = paths[0];
    const directory = first === undefined ? undefined : parentDirectory(first);
    // The directory's own kind first, whatever the number of names: when it is missing, the
    // probe rules out every name in it without a lookup (filesystem-probe.ts). No listing once
    // the line creates a symlink: the listing would not hold it yet.
    const isDirectory = directory !== undefined && probe.kind(directory) === 'directory';
    const realOnly = probe.assumesSymlinks?.() === false;
    const listing = isDirectory && words.length >= NAMES_WORTH_A_LISTING && realOnly ? probe.listUpTo(directory, words.length) : undefined;
    const test = listing === undefined ? undefined : listedNameTest(listing);
    // A directory that is not there holds no name: what the probe would answer for each name in
    // it (filesystem-probe.ts), without a lookup and a cache entry per name (split's 676).
    const holdsNothing = directory !== undefined && !isDirectory && realOnly;
    return words.filter((_, index) => {
      const path = paths[index];
      if (path === undefined) return false;
      if (holdsNothing && parentDirectory(path) === directory) return false;
      if (test !== undefined && parentDirectory(path) === directory && test(path.slice(path.lastIndexOf('/') + 1)) === 'absent') return false;
      return probe.kind(path) !== undefined;
    });
  }

  absolute(word: Word): string | undefined {
    if (word.value === undefined || word.value === '') return undefined;
    if (word.value.startsWith('/')) return normalizeAbsolute(word.value);
    const dir = this.state.cwd.known ? this.state.cwd.dirs[0] : undefined;
    // posix.resolve(dir, value), without its cost for the usual value that needs no normalizing.
    return dir === undefined ? undefined : normalizeAbsolute(`${dir}/${word.value}`);
  }

  writtenEarlier(word: Word): boolean {
    const value = word.value;
    if (value === undefined || value === '') return false;
    const dirs = value.startsWith('/') ? ['/'] : this.state.cwd.known ? this.state.cwd.dirs : [];
    const session = this.walker.session;
    return dirs.some((dir) => {
      const resolved = resolvePath(value, dir, session.probe, true);
      return session.written(resolved.realPath ?? resolved.path);
    });
  }

  projectFile(word: Word): string | 'unknown' | undefined {
    const path = this.absolute(word);
    if (path === undefined) return 'unknown';
    const session = this.walker.session;
    if (this.writtenEarlier(word)) return 'unknown';
    // Read where the name really leads, as scripts are (the last name is not followed there).
    const physical = resolvePath(path, '/', session.probe, true).realPath ?? path;
    if (!session.mayReadScript(path) || !session.mayReadScript(physical)) return session.probe.kind(physical) === undefined ? undefined : 'unknown';
    const text = session.probe.readScript(physical);
    if (text === undefined) return undefined;
    return typeof text === 'string' ? text : 'unknown';
  }

  run(argv: readonly Word[], changes: RunChanges = {}): void {
    let state = this.state;
    if (changes.cwd !== undefined) {
      state = copyState(state);
      state.cwd = directoryOf(state.cwd, changes.cwd);
    }
    const inner = new InvocationContext(this.walker, state, argv, changes.stdin ?? this.stdin, {
      homeReassigned: this.options.homeReassigned || changes.homeReassigned === true,
      placeholder: changes.placeholder ?? this.options.placeholder,
    });
    dispatchCommand(inner);
  }

  script(code: string, via: string, options: ScriptOptions = {}): void {
    // `eval` and `source` run in this very shell (a `cd` in them stays); `sh -c` in a new one,
    // with the options it is started with (`bash -O dotglob -c 'cat *'`).
    const state = options.sameShell ? this.state : copyState(this.state);
    if (!options.sameShell) state.glob = globOptionsOfShellArguments(this.argv.slice(1), state.glob);
    if (this.options.homeReassigned || options.homeReassigned) state.home = undefined;
    if (options.inHome) state.cwd = state.home === undefined ? { known: false, text: '~', reason: 'variable' } : knownDirectory(state.home);
    if (options.cwd !== undefined) state.cwd = directoryOf(state.cwd, options.cwd);
    this.walker.session.analyzeScript(code, state, this.walker.depth + 1, via);
  }

  changeDirectory(change: DirectoryChange): void {
    const state = this.state;
    const from = state.cwd;
    if (change.kind === 'popd') {
      state.cwd = state.stack.pop() ?? { known: false, text: 'popd', reason: 'unsupported' };
      state.previous = from;
      return;
    }
    const target = this.directoryTarget(change.target);
    state.cwd = target.known && target.dirs.every((dir) => this.isDirectory(dir)) ? target : eitherDirectory(target, from);
    state.previous = from;
    if (change.kind === 'pushd') state.stack.push(from);
  }

  /**
   * Builtins that set the variables they name (`read PATH`, `printf -v BASH_ENV …`, `mapfile`,
   * `getopts`), and `hash -p file name`, which makes a name run a file: the shell state they change.
   */
  applyVariableSetters(): void {
    const words = this.argv.slice(1);
    let names: readonly Word[] = [];
    if (this.program === 'hash') {
      if (words.some((word) => word.value?.startsWith('-p') === true)) this.state.pathChanged = true;
      return;
    }
    if (this.program === 'printf') {
      // `printf -v NAME …` or `printf -vNAME …`.
      const index = words.findIndex((word) => word.value?.startsWith('-v') === true);
      const option = words[index]?.value;
      if (option === '-v') names = words.slice(index + 1, index + 2);
      else if (option !== undefined) names = [staticWord(option.slice(2))];
    } else if (VARIABLE_READERS.has(this.program)) names = words.filter((word) => !word.value?.startsWith('-'));
    for (const word of names) {
      // A name known only at run time may be PATH.
      const name = word.value === undefined ? 'PATH' : word.value;
      this.walker.variableSet(name, word, this.state);
      this.walker.subscriptNames([word], true);
      // Set from input: what it holds is known only at run time (evaluated-text.ts).
      this.state.suspect.add(name.replace(/\[.*$/, ''));
    }
  }

  /** `shopt -s dotglob`, `setopt globdots`, …: later globs of this shell match differently. */
  applyShellOptions(): void {
    const glob = globOptionsAfterBuiltin(this.program, this.argv.slice(1), this.state.glob);
    if (glob !== undefined) this.state.glob = glob;
  }

  created(word: Word): void {
    if (word.value === undefined) return;
    const value = word.value;
    const dirs = value.startsWith('/') ? ['/'] : this.state.cwd.known ? this.state.cwd.dirs : [];
    for (const dir of dirs) this.walker.session.createdDirectories.add(posix.resolve(dir, value));
  }

  linked(target: Word, link: Word, symbolic: boolean): void {
    if (target.value === undefined || link.value === undefined || target.value === '' || link.value === '') return;
    const dirs = this.state.cwd.known ? this.state.cwd.dirs : [];
    const probe = this.walker.session.probe;
    for (const dir of dirs) {
      // The link itself is replaced, not followed (`ln -sf x existing-link`); its directory is followed.
      const at = resolvePath(link.value, dir, probe, false);
      const linkPath = at.realPath ?? at.path;
      const base = symbolic ? posix.dirname(linkPath) : dir;
      probe.assumeSymlink(linkPath, posix.resolve(base, target.value));
    }
  }

  private directoryTarget(target: Word | undefined): WorkingDirectory {
    if (target === undefined) return this.state.home === undefined ? { known: false, text: '$HOME', reason: 'variable' } : knownDirectory(this.state.home);
    if (target.value === undefined) return { known: false, text: target.text, reason: target.reason };
    if (target.value === '-') return this.state.previous ?? { known: false, text: 'cd -', reason: 'unsupported' };
    const cdpath = cdpathInEffect(this.state.cdpath);
    if (cdpath !== undefined && searchesCdpath(target.value)) {
      if (cdpath === 'dynamic') return { known: false, text: `$CDPATH/${target.value}`, reason: 'variable' };
      // Bash enters the first CDPATH directory holding `target`, and the working directory's last.
      for (const entry of cdpath) {
        const candidate = enterDirectory(entry === '' ? this.state.cwd : enterDirectory(this.state.cwd, entry), target.value);
        if (candidate.known && candidate.dirs.every((dir) => this.isDirectory(dir))) return candidate;
      }
    }
    return enterDirectory(this.state.cwd, target.value);
  }

  private isDirectory(dir: string): boolean {
    return this.walker.session.createdDirectories.has(dir) || this.walker.session.probe.kind(dir) === 'directory';
  }
}

/**
 * How many names in one directory make listing it worth trying (`existing`): the first read of
 * a large directory costs about as much as a few hundred lookups whatever is read of it (ext4
 * reads its hash tree), so a listing pays for split's 676 possible names, not for csplit's 100.
 */
const NAMES_WORTH_A_LISTING = 256;

/** The directory part of an absolute, normalized path (`/` for `/name`). */
function parentDirectory(path: string): string {
  return path.slice(0, path.lastIndexOf('/')) || '/';
}

/**
 * True when a PATH value puts a directory the agent can fill in front of the programs: a relative
 * component (`.`, `./b`, `b`, or an empty one, which means `.`) or the working directory
 * (`$PWD`, `$(pwd)`). `$VIRTUAL_ENV/bin:$PATH` or `/usr/local/go/bin` are left alone: their
 * programs are opaque like any other, and a venv's activation must not make every command unknown.
 */
export function addsWorkingDirectories(value: string): boolean {
  const text = value.replace(/^["']|["']$/g, '');
  return text.split(':').some((component) => component === '' || /^(?:\$\{?PWD\b|\$\(pwd\)|`pwd`)/.test(component) || !/^[/$~]/.test(component));
}

/** Builtins that read values into the variables their operands name. */
const VARIABLE_READERS: ReadonlySet<string> = new Set(['read', 'mapfile', 'readarray', 'getopts']);

/** Builtins bash runs itself, whatever PATH holds. */
const SHELL_BUILTINS: ReadonlySet<string> = new Set([
  '.', ':', '[', 'alias', 'bg', 'bind', 'break', 'builtin', 'caller', 'cd', 'command', 'compgen', 'complete', 'continue', 'declare', 'dirs', 'disown', 'echo', 'enable', 'eval', 'exec', 'exit',
  'export', 'false', 'fc', 'fg', 'getopts', 'hash', 'help', 'history', 'jobs', 'kill', 'let', 'local', 'logout', 'mapfile', 'popd', 'printf', 'pushd', 'pwd', 'read', 'readarray', 'readonly',
  'return', 'set', 'shift', 'shopt', 'source', 'suspend', 'test', 'times', 'trap', 'true', 'type', 'typeset', 'ulimit', 'umask', 'unalias', 'unset', 'wait',
]);

/** The directory `word` names from `cwd` (`env -C dir`, `tmux new -c dir`): unknown when the word is. */
function directoryOf(cwd: WorkingDirectory, word: Word): WorkingDirectory {
  return word.value === undefined ? { known: false, text: word.text, reason: word.reason } : enterDirectory(cwd, word.value);
}

/**
 * Sends one simple command to the handler for its program. A program named by a path
 * (`./deploy.sh`, `/usr/bin/env`) is also an execute of that file; a program known only at run
 * time (`$EDITOR file`) is a dynamic execute, and its arguments are treated like an unknown
 * program's. Variables assigned with the command come first: they act even when argv is empty
 * (`export PAGER=…` on its own).
 */
export function dispatchCommand(context: InvocationContext): void {
  context.reportAssignments();
  const name = context.argv[0];
  if (name === undefined) return;
  if (name.value === undefined) {
    context.record();
    context.dynamic('execute', name.text, name.reason, 'program name');
    UNKNOWN_PROGRAM.handler(context);
    return;
  }
  if (name.value.includes('/')) context.file('execute', name, 'program path', { runner: 'kernel' });
  else if (context.pathChanged && !SHELL_BUILTINS.has(name.value)) context.dynamic('execute', name.value, 'variable', 'a program looked up in a PATH this command line changes');
  const convention = conventionFor(context.program);
  if (!convention.wrapper) context.record();
  context.applyShellOptions();
  context.applyVariableSetters();
  reportPrintedCredentials(context);
  convention.handler(context);
}
