import type { CdPath } from './cdpath.js';
import type { GlobOptions } from './glob-expansion.js';
import type { WorkingDirectory } from './working-directory.js';

/**
 * The part of a running shell's state that changes what a path means: its working directory
 * (and the ones `cd -` and `popd` return to), its HOME, its glob options and CDPATH. A subshell, a pipeline element or a
 * nested `sh -c` works on a copy; `cd` in a `{ …; }` group or via `eval` changes the original.
 */
export interface ShellState {
  cwd: WorkingDirectory;
  /** OLDPWD, for `cd -`. */
  previous: WorkingDirectory | undefined;
  /** The `pushd` stack. */
  stack: WorkingDirectory[];
  /** The user's home directory; undefined once the script assigned HOME (then `~` and `$HOME` are dynamic). */
  home: string | undefined;
  /** `shopt -s dotglob`, `GLOBIGNORE=…`, `setopt globdots`, `bash -O nocaseglob`: what globs match from here on. */
  glob: GlobOptions;
  /** Where `cd name` looks for `name` first (cdpath.ts). */
  cdpath: CdPath;
  /** True once the script assigned PATH: a program named without a slash may then be any file. */
  pathChanged: boolean;
  /**
   * Variables this command line set from data known only at run time (a command's output,
   * `read`), or to text holding a subscript with an expansion: evaluating one as arithmetic may
   * run a command (evaluated-text.ts). One set for the whole line, only ever added to: a function
   * body is analyzed on a copy of the state but runs in its caller's shell, and which branch or
   * loop pass assigned last is not known.
   */
  suspect: Set<string>;
}

export function copyState(state: ShellState): ShellState {
  return { cwd: state.cwd, previous: state.previous, stack: [...state.stack], home: state.home, glob: state.glob, cdpath: state.cdpath, pathChanged: state.pathChanged, suspect: state.suspect };
}
