import { posix } from 'node:path';
import type { CommandContext, DirectoryChange, FileOptions, RunChanges, StdinSource } from './command-context.js';
import { conventionFor, UNKNOWN_PROGRAM } from './commands/registry.js';
import { reportFile } from './file-reporting.js';
import type { ScriptWalker } from './script-walker.js';
import type { DynamicReason, FileOperationKind } from './shell-analysis.js';
import { copyState, type ShellState } from './shell-state.js';
import type { Word } from './word-expansion.js';
import { eitherDirectory, enterDirectory, knownDirectory, type WorkingDirectory } from './working-directory.js';

interface InvocationOptions {
  homeReassigned: boolean;
  placeholder?: RunChanges['placeholder'];
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

  get home(): string | undefined {
    return this.options.homeReassigned ? undefined : this.state.home;
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
    reportFile(this.walker.session, this.state, kind, word, via, options);
  }

  dynamic(kind: FileOperationKind, text: string, reason: DynamicReason, via: string): void {
    this.walker.session.log.add({ kind, dynamic: { text, reason }, via });
  }

  kindOf(word: Word): 'file' | 'directory' | 'other' | undefined {
    const path = this.absolute(word);
    return path === undefined ? undefined : this.walker.session.probe.kind(path);
  }

  absolute(word: Word): string | undefined {
    if (word.value === undefined || word.value === '') return undefined;
    const dir = this.state.cwd.known ? this.state.cwd.dirs[0] : undefined;
    if (!word.value.startsWith('/') && dir === undefined) return undefined;
    return posix.resolve(dir ?? '/', word.value);
  }

  run(argv: readonly Word[], changes: RunChanges = {}): void {
    let state = this.state;
    if (changes.cwd !== undefined) {
      state = copyState(state);
      state.cwd = changes.cwd.value === undefined ? { known: false, text: changes.cwd.text, reason: changes.cwd.reason } : enterDirectory(state.cwd, changes.cwd.value);
    }
    const inner = new InvocationContext(this.walker, state, argv, changes.stdin ?? this.stdin, {
      homeReassigned: this.options.homeReassigned || changes.homeReassigned === true,
      placeholder: changes.placeholder ?? this.options.placeholder,
    });
    dispatchCommand(inner);
  }

  script(code: string, via: string, options: { homeReassigned?: boolean; sameShell?: boolean } = {}): void {
    // `eval` and `source` run in this very shell (a `cd` in them stays); `sh -c` in a new one.
    const state = options.sameShell ? this.state : copyState(this.state);
    if (this.options.homeReassigned || options.homeReassigned) state.home = undefined;
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

  created(word: Word): void {
    if (word.value === undefined) return;
    const value = word.value;
    const dirs = value.startsWith('/') ? ['/'] : this.state.cwd.known ? this.state.cwd.dirs : [];
    for (const dir of dirs) this.walker.session.createdDirectories.add(posix.resolve(dir, value));
  }

  private directoryTarget(target: Word | undefined): WorkingDirectory {
    if (target === undefined) return this.state.home === undefined ? { known: false, text: '$HOME', reason: 'variable' } : knownDirectory(this.state.home);
    if (target.value === undefined) return { known: false, text: target.text, reason: target.reason };
    if (target.value === '-') return this.state.previous ?? { known: false, text: 'cd -', reason: 'unsupported' };
    return enterDirectory(this.state.cwd, target.value);
  }

  private isDirectory(dir: string): boolean {
    return this.walker.session.createdDirectories.has(dir) || this.walker.session.probe.kind(dir) === 'directory';
  }
}

/**
 * Sends one simple command to the handler for its program. A program named by a path
 * (`./deploy.sh`, `/usr/bin/env`) is also an execute of that file; a program known only at run
 * time (`$EDITOR file`) is a dynamic execute, and its arguments are treated like an unknown
 * program's.
 */
export function dispatchCommand(context: InvocationContext): void {
  const name = context.argv[0];
  if (name === undefined) return;
  if (name.value === undefined) {
    context.record();
    context.dynamic('execute', name.text, name.reason, 'program name');
    UNKNOWN_PROGRAM.handler(context);
    return;
  }
  if (name.value.includes('/')) context.file('execute', name, 'program path');
  const convention = conventionFor(context.program);
  if (!convention.wrapper) context.record();
  convention.handler(context);
}
