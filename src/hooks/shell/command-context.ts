import type { ScriptRunner } from './script-files.js';
import type { DynamicReason, FileOperationKind, SkippedByDefault } from './shell-analysis.js';
import type { Word } from './word-expansion.js';

/**
 * What a command handler (commands/*.ts) sees of one simple command, and the only ways it can
 * report what the command does. Handlers know a program's argument conventions; everything
 * about paths, the working directory and nesting is done here, the same way for all of them.
 */
export interface CommandContext {
  /** The words of the command after expansion; argv[0] is the program as written. */
  readonly argv: readonly Word[];
  /** The program's file name without directories (`/usr/bin/cat` → `cat`). */
  readonly program: string;
  /** Where the command's standard input comes from (a shell with no script reads its code there). */
  readonly stdin: StdinSource;
  /** The HOME the program sees (for files it finds there itself, like ~/.netrc); undefined when reassigned. */
  readonly home: string | undefined;
  /** Reports that the command performs `kind` on the file `word` names. */
  file(kind: FileOperationKind, word: Word, via: string, options?: FileOptions): void;
  /** Reports an operation whose target is known only at run time (code run by an interpreter, xargs input, ...). */
  dynamic(kind: FileOperationKind, text: string, reason: DynamicReason, via: string): void;
  /** What a static word names on disk now (following symlinks), undefined if nothing or unknown. */
  kindOf(word: Word): 'file' | 'directory' | 'other' | undefined;
  /**
   * The static words among `words` that name something on disk now, as kindOf tells, for many
   * names in one directory (split's possible output names): one listing of the directory rules
   * out the names it does not hold (listed-names.ts) instead of a lookup of each.
   */
  existing(words: readonly Word[]): Word[];
  /** The absolute, normalized path a static word names from the likeliest working directory; undefined if unknown. */
  absolute(word: Word): string | undefined;
  /**
   * True when an earlier command of this line writes the file a static word names, in any of
   * the possible working directories: a program that then runs it by its own convention (make's
   * Makefile, npm's package.json) runs what no reading of the line can be sure of.
   */
  writtenEarlier(word: Word): boolean;
  /**
   * The text of a project file a program takes code from by its own convention (package.json's
   * scripts), as the analysis reads a script: `unknown` when it is there but not to be trusted
   * (protected, written earlier in the line, too large, not a regular file, another file's hard
   * link), undefined when there is nothing there.
   */
  projectFile(word: Word): string | 'unknown' | undefined;
  /** Runs another command line made of these words, as the same shell would (wrappers, `find -exec`). */
  run(argv: readonly Word[], changes?: RunChanges): void;
  /**
   * Analyzes shell code given as a string (`sh -c`, `eval`, a heredoc fed to a shell) one level
   * deeper. `cwd`: it starts in that directory (`tmux new -c dir cmd`); `inHome`: in the home
   * directory, as a login shell does (`ssh host cmd`).
   */
  script(code: string, via: string, options?: ScriptOptions): void;
  /** `cd`, `pushd`, `popd`: changes the working directory of the commands that follow. */
  changeDirectory(change: DirectoryChange): void;
  /** Records a directory the command creates, so a later `cd` into it is not doubted. */
  created(word: Word): void;
  /**
   * Records a link the command creates at `link` to `target` (`ln -s ~ h`), so later commands of
   * the line resolve paths through it (`cat h/.ssh/id_rsa` reads `~/.ssh/id_rsa`). A relative
   * target of a symbolic link is relative to the link's directory, of a hard link to the working one.
   */
  linked(target: Word, link: Word, symbolic: boolean): void;
}

export interface ScriptOptions {
  homeReassigned?: boolean;
  sameShell?: boolean;
  cwd?: Word;
  inHome?: boolean;
}

export interface FileOptions {
  /** The whole tree under a directory (`grep -r`, `cp -r`, `tar c`, `find`). */
  recursive?: boolean;
  /** With `recursive`: what the program leaves out of the tree by default (see FileOperation). */
  skips?: SkippedByDefault;
  /** Resolve a relative path against this static word's directory instead of the working directory (`ln -s` targets). */
  relativeTo?: Word;
  /** False when the command acts on a symlink itself, not on what it points to (`rm link`, `ln`'s link name). */
  followFinal?: boolean;
  /** True when `-` names a file literally; by default it is standard input or output and not reported. */
  dashIsFile?: boolean;
  /**
   * With `execute`: the file is a shell script run this way, and what it holds is followed
   * (script-files.ts). Without it an executed file is a program or another language's script.
   */
  runner?: ScriptRunner;
  /** With `write`: only the file's attributes change (chmod, chown, touch), so what it holds stays as it was. */
  keepsContent?: boolean;
}

export type StdinSource =
  /** The standard input the whole command line was given (for an agent's shell: nothing useful). */
  | { kind: 'inherited' }
  /** `< file`. */
  | { kind: 'file'; word: Word }
  /** A heredoc, a here-string or the output of the previous pipeline command; `text` when known statically. */
  | { kind: 'text'; from: 'heredoc' | 'here-string' | 'pipe'; text: string | undefined };

export interface RunChanges {
  stdin?: StdinSource;
  /** `env -C dir`, `sudo -D dir`, `git -C dir`: the inner command runs there. */
  cwd?: Word;
  /** `HOME=/x sh -c …`, `env HOME=/x …`, `sudo -H`: `~` and `$HOME` inside are not the user's home. */
  homeReassigned?: boolean;
  /**
   * `find … -exec cmd {} ;`: the word `{}` stands for every file under these roots, so an
   * operation on it becomes a recursive operation on each root.
   */
  placeholder?: { token: string; roots: readonly Word[] };
}

export type DirectoryChange =
  | { kind: 'cd'; target: Word | undefined }
  | { kind: 'pushd'; target: Word | undefined }
  | { kind: 'popd' };

export type CommandHandler = (context: CommandContext) => void;

export interface CommandConvention {
  handler: CommandHandler;
  /**
   * Wrappers (`sudo`, `env`, `timeout`, `xargs`, ...) only start another command; they are
   * peeled off, so `commands` lists what they run instead of themselves.
   */
  wrapper?: boolean;
}
