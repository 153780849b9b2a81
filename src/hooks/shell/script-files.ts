import { statSync } from 'node:fs';
import { posix } from 'node:path';
import { MAX_COMMAND_BYTES } from './analysis-limits.js';
import type { AnalysisSession } from './analysis-session.js';

/**
 * A shell script is shell code kept in a file: `bash x.sh`, `source x.sh`, `sh < x.sh` and
 * `./x.sh` run whatever x.sh holds, as `sh -c` runs its string, so the analysis follows what is
 * on disk now, when the hook lets it read the file (never a protected one: its contents would
 * reach the payloads). A file the command line itself writes holds, when it runs, what no static
 * reading can be sure of (which write ran last, through which descriptor, with which shell
 * options and expansions), so running it, with a shell or any other interpreter
 * (`echo 'cat .env' > x.sh; bash x.sh`, `… > x.py; python3 x.py`), is code known only at run
 * time, like `python -c`.
 */

/** How a command runs a file it executes. */
export type ScriptRunner =
  /** `sh x.sh`, `sh < x.sh`: shell code in a new shell, whatever its `#!` line says. */
  | 'new_shell'
  /** `source x.sh`, `. x.sh`: shell code in this very shell. */
  | 'same_shell'
  /** `./x.sh`: the kernel runs the interpreter its `#!` line names; without one, the shell runs it itself. */
  | 'kernel';

/** What running one file runs, as far as the analysis can know. */
export type FileCode =
  /** Shell code to follow one level deeper. */
  | { kind: 'shell'; code: string }
  /** Code known only when the command runs: a dynamic execute, for policy to decide. */
  | { kind: 'unknown'; why: string }
  /** A program, another language's script, or no file at all: the execute itself is all there is to report. */
  | { kind: 'opaque' };

const OPAQUE: FileCode = { kind: 'opaque' };

/** Interpreters whose language is bash's, near enough for the bash grammar (fish and csh are not). */
const SHELL_INTERPRETERS: ReadonlySet<string> = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'yash', 'rbash']);

/** What running the file at `path` (physical) with `runner` runs; `runner` undefined: an interpreter of another language. */
export function codeRunFrom(path: string, runner: ScriptRunner | undefined, session: AnalysisSession): FileCode {
  if (session.written(path)) return { kind: 'unknown', why: 'a file this command line writes, run as code' };
  if (runner === undefined || !session.mayReadScript(path)) return OPAQUE;
  const text = session.probe.readScript(path);
  // `bash x.s*` with x.sh written in the same line: the pattern matched nothing when analyzed.
  if (text === undefined) return /[*?[]/.test(posix.basename(path)) ? { kind: 'unknown', why: 'a pattern that matches no file yet' } : OPAQUE;
  if (typeof text === 'object') {
    // A compiled program (`/bin/ls`) or another language's script is run, not followed; only shell code that long is beyond the analysis.
    if (runner !== 'same_shell' && hasNulInFirstLine(text.head)) return OPAQUE;
    if (runner === 'kernel' && text.head.startsWith('#!') && text.head.includes('\n') && !isShellScript(text.head)) return OPAQUE;
    return { kind: 'unknown', why: `a script larger than ${MAX_COMMAND_BYTES} bytes` };
  }
  if (text === 'not_regular') return { kind: 'unknown', why: 'a script read from a FIFO or device' };
  if (text === 'linked') return { kind: 'unknown', why: 'a script with other names (a hard link), which svc does not read' };
  // bash will not run a file whose first line holds a NUL (a compiled program, to the kernel);
  // `source` reads any file, and both skip NULs elsewhere.
  if (runner !== 'same_shell' && hasNulInFirstLine(text)) return OPAQUE;
  if (runner === 'kernel' && !isShellScript(text)) return OPAQUE;
  return { kind: 'shell', code: text.replaceAll('\0', '') };
}

/** bash's test for a binary file: a NUL before the first newline, within the first 80 bytes. */
function hasNulInFirstLine(text: string): boolean {
  const sample = text.slice(0, 80);
  const newline = sample.indexOf('\n');
  return (newline === -1 ? sample : sample.slice(0, newline)).includes('\0');
}

/**
 * True when the kernel may hand the file to a shell: any word of its `#!` line names one (so
 * `#!/usr/bin/env -S -u X bash` and `#!/usr/bin/nice bash` count, whatever runs in between), or
 * it has none, and then bash runs it itself (execve fails with ENOEXEC).
 */
export function isShellScript(text: string): boolean {
  if (!text.startsWith('#!')) return true;
  const end = text.indexOf('\n');
  return text
    .slice(2, end === -1 ? undefined : end)
    .trim()
    .split(/\s+/)
    .some((word) => SHELL_INTERPRETERS.has(posix.basename(word)));
}

/**
 * Which version of a file a dynamic execute is about, for its payload: an approval of
 * `bash x.sh` for a script svc could not follow then covers that file as it was, and once it
 * changes (its ctime moves with every write, rename or link, and no program can set it back)
 * the same command is a different payload that needs its own approval.
 */
export function fileVersion(path: string): string {
  try {
    const info = statSync(path, { bigint: true });
    return ` [file ${info.dev}:${info.ino}, ${info.size} bytes, changed at ${info.ctimeNs} ns]`;
  } catch {
    return '';
  }
}
