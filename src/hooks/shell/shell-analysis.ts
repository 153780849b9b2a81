/**
 * What shell analysis reports about one command line: every file operation it performs, each
 * with its kind and its path resolved the way bash and the kernel would resolve it. The engine
 * turns every operation into an action of its own (tool `fs.file.<kind>`, resource
 * `file:<path>`), so a copy of a protected file is denied for its source read.
 */

export type FileOperationKind = 'read' | 'write' | 'delete' | 'execute';

export type SkippedByDefault = 'git' | 'ripgrep' | 'untracked' | 'unchanged' | 'npm';

/** Why a path is known only at run time. */
export type DynamicReason =
  | 'variable' // $X, ${X}, except $HOME
  | 'command_substitution' // $(…), `…`
  | 'process_substitution' // <(…) used as a path
  | 'arithmetic' // $((…))
  | 'interpreter_code' // python -c, node -e, perl -e, ruby -e, …: code that may open anything
  | 'unsupported'; // a construct analysis does not follow (for example `~user`)

export interface FileOperation {
  kind: FileOperationKind;
  /** Absolute and normalized (`.`, `..`, `~`, `$HOME` resolved), as the command names it. Absent when dynamic. */
  path?: string;
  /** Where `path` really leads when a symlink on the way changes it; the guard checks both. */
  realPath?: string;
  /** Set when the path is known only at run time: the word as written, and why. */
  dynamic?: { text: string; reason: DynamicReason };
  /** A directory read with everything under it (`grep -r`, `cp -r`, `tar c`, `rsync -a`, ...). */
  recursive?: boolean;
  /**
   * What a recursive read leaves out by default, which the guard checks per protected file inside:
   * `git`, staging (`git add` without -f, `commit -a`, `stash` without -a), skips the files git
   * ignores and does not track; `ripgrep` (`rg` without --hidden, -u, --no-ignore or a glob) skips
   * hidden files and directories and what .gitignore lists; `untracked` (the patches of
   * `git log -p`, `git show`, `git diff HEAD`) skips every file git does not track, and `unchanged`
   * (`git diff` of the working tree) also those unchanged since staged: for these two the guard
   * looks for protected files in git's index, not on disk; `npm` (`npm pack`, `npm publish`) skips
   * what the package's `files` list leaves out or its ignore files list (src/hooks/npm-packed.ts).
   */
  skips?: SkippedByDefault;
  /** Where it came from, for explanations: "cat argument", "> redirection", "cp source", "heredoc", ... */
  via: string;
}

export interface SimpleCommand {
  /** The words after wrappers are peeled (`sudo env X=1 timeout 5 cat f` → `cat f`), as bash would pass them where static. */
  argv: string[];
  /** True when some word of argv is known only at run time. */
  dynamic: boolean;
}

export type ShellAnalysis =
  | { ok: true; commands: SimpleCommand[]; operations: FileOperation[] }
  /** Not a complete bash program (or beyond the analyzer's limits): the hook fails closed with `shell_unparsable`. */
  | { ok: false; code: 'shell_unparsable'; message: string };

export interface ShellContext {
  /** The directory the command runs in (absolute). */
  cwd: string;
  /** The user's home directory, for `~` and `$HOME`. */
  home: string;
  /**
   * The CDPATH the shell starts with (`cd name` searches it). When absent, the analyzing
   * process' own: a hook runs with the environment of the agent whose shell runs the command.
   */
  cdpath?: string;
  /**
   * Whether the analysis may read the script file at this (physical) path to follow what a shell
   * runs from it (`bash x.sh`, `source x.sh`, `./x.sh`). The hook says no for protected paths, so
   * their contents never reach an analysis (or the ledger through it); without this, script files
   * on disk are not read, and only what the command line itself writes into one is followed.
   */
  mayReadScript?: (path: string) => boolean;
}
