import { posix } from 'node:path';
import { MAX_COMMAND_BYTES } from './analysis-limits.js';
import type { AnalysisSession } from './analysis-session.js';

/**
 * A shell script is shell code kept in a file: `bash x.sh`, `source x.sh`, `sh < x.sh` and
 * `./x.sh` run whatever x.sh holds, as `sh -c` runs its string, so the analysis follows it. What
 * the file holds when the command runs is known in two ways: the command line wrote it earlier
 * (`echo 'cat .env' > x.sh; bash x.sh` runs what echo printed, or unknown code when that is not
 * plain), or it is on disk now and the hook lets the analysis read it (never a protected file:
 * its contents would reach the payloads). A file written earlier in the line and then run by any
 * other interpreter (`… > x.py; python3 x.py`) is code known only at run time, like `python -c`.
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
  const written = session.written(path);
  if (written !== undefined) {
    if (runner === undefined) return { kind: 'unknown', why: 'a file this command line writes, run as code' };
    if (written.content === undefined) return { kind: 'unknown', why: 'a script this command line writes' };
    if (runner === 'kernel' && !isShellScript(written.content)) return { kind: 'unknown', why: 'a program this command line writes' };
    return { kind: 'shell', code: written.content };
  }
  if (runner === undefined || !session.mayReadScript(path)) return OPAQUE;
  const text = session.probe.readScript(path);
  if (text === undefined) return OPAQUE;
  if (text === 'too_large') return { kind: 'unknown', why: `a script larger than ${MAX_COMMAND_BYTES} bytes` };
  if (text === 'not_regular') return { kind: 'unknown', why: 'a script read from a FIFO or device' };
  if (runner === 'kernel' && !isShellScript(text)) return OPAQUE;
  return { kind: 'shell', code: text };
}

/**
 * True when the kernel would hand the file to a shell: its `#!` line names one (directly or
 * through `env`), or it has none, and then bash runs it itself (execve fails with ENOEXEC).
 */
export function isShellScript(text: string): boolean {
  if (!text.startsWith('#!')) return true;
  const end = text.indexOf('\n');
  const words = text.slice(2, end === -1 ? undefined : end).trim().split(/\s+/);
  let index = 0;
  if (posix.basename(words[0] ?? '') === 'env') {
    index = 1;
    // `#!/usr/bin/env -S bash -e`: options of env come before the program.
    while ((words[index] ?? '').startsWith('-')) index += 1;
  }
  return SHELL_INTERPRETERS.has(posix.basename(words[index] ?? ''));
}
