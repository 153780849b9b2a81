import { posix } from 'node:path';
import { createFilesystemProbe, type FilesystemProbe } from './filesystem-probe.js';
import type { ShellContext } from './shell-analysis.js';

/**
 * Where a path really leads. `path` is what the command names, made absolute and normalized
 * lexically (`a/../b` is `b`); `realPath` is where the kernel would arrive, following symlinks
 * on the way (and `..` after a symlink, which the lexical form gets wrong). A guard checks both:
 * `cat link-to-env` names an innocent file but reads `.env`.
 */
export interface ResolvedPath {
  path: string;
  /** Present only when it differs from `path`. */
  realPath?: string;
}

/**
 * Resolves a path given by a tool that is not a shell (Claude Code's Read `file_path`, ...):
 * a leading `~`, `~/`, `$HOME` or `${HOME}` is the home directory, a relative path is relative to
 * the working directory, and symlinks are followed through the longest prefix that exists.
 * `~user` is left as written (relative), since it names another account's home.
 */
export function resolveFilePath(text: string, context: ShellContext): ResolvedPath {
  return resolvePath(expandHomePrefix(text, context.home), context.cwd, createFilesystemProbe(), true);
}

/** `~`, `~/x`, `$HOME`, `$HOME/x`, `${HOME}/x` → under `home`; anything else unchanged. */
export function expandHomePrefix(text: string, home: string): string {
  for (const prefix of ['~', '$HOME', '${HOME}']) {
    if (text === prefix) return home;
    if (text.startsWith(`${prefix}/`)) return home + text.slice(prefix.length);
  }
  return text;
}

/** A `//`, a `.` or `..` component, or a trailing `/`: what normalizing an absolute path changes. */
const NOT_NORMALIZED = /\/(?:\.{1,2})?(?:\/|$)/;

/** posix.resolve(`path`) for an absolute path, without its cost for the usual one that is already normal. */
export function normalizeAbsolute(path: string): string {
  return path.startsWith('/') && !NOT_NORMALIZED.test(path) ? path : posix.resolve(path);
}

/**
 * Resolves `value` (already expanded by the shell) against `base`. `followFinal` false resolves
 * the directory but not the last component: `rm link` removes the link, not what it points to.
 */
export function resolvePath(value: string, base: string, probe: FilesystemProbe, followFinal: boolean): ResolvedPath {
  const relative = !value.startsWith('/');
  if (relative) learnBaseDirectory(base, probe);
  const raw = relative ? `${base}/${value}` : value;
  const path = normalizeAbsolute(raw);
  const keepsTrailingSlash = value.endsWith('/');
  let real: string;
  if (followFinal || keepsTrailingSlash) {
    real = physicalPath(raw, probe);
  } else {
    const slash = raw.lastIndexOf('/');
    const last = raw.slice(slash + 1);
    // `rm dir/..` or `rm .` act on what the name resolves to; only a real last name is kept as is.
    real = last === '..' || last === '.' || last === '' ? physicalPath(raw, probe) : posix.join(physicalPath(raw.slice(0, slash) || '/', probe), last);
  }
  return real === path ? { path } : { path, realPath: real };
}

/**
 * Records where the directory relative paths are resolved against really is, with one
 * realpath(3) instead of an lstat per component: every path under it then looks up only its
 * own components. When no symlink is on the way, each leading part of it is a directory of
 * the same name, recorded too (absolute paths elsewhere under them, `~/…`, share the work).
 * Exactly what physicalPath would work out, since the kernel resolves an existing path the same
 * way; a directory that does not exist is left to physicalPath, and so is everything once the
 * line creates a symlink (realpath(3) cannot see one that is not there yet).
 */
function learnBaseDirectory(base: string, probe: FilesystemProbe): void {
  if (base === '/' || probe.physical.has(base) || probe.assumesSymlinks?.() !== false) return;
  const real = probe.realpath(base);
  if (real === undefined) return;
  if (real === base) {
    for (let slash = base.indexOf('/', 1); slash !== -1; slash = base.indexOf('/', slash + 1)) probe.physical.set(base.slice(0, slash), base.slice(0, slash));
  }
  probe.physical.set(base, real);
}

/**
 * Where the kernel would arrive following `raw` (absolute, not normalized, so a `..` after a
 * symlink goes where the kernel goes): component by component, an lstat each (a realpath(3)
 * only for a symlink), cached per analysis, so paths sharing directories share the work. A
 * component that does not exist ends the lookups; the rest is appended as written.
 */
export function physicalPath(raw: string, probe: FilesystemProbe): string {
  const known = probe.physical.get(raw);
  if (known !== undefined) return known;
  // The walk resumes after the longest leading part already worked out: what is recorded for it
  // is where a walk from the root would be there (a recorded part exists, or was recorded by
  // such a walk, along with every part before it).
  let at = raw.lastIndexOf('/');
  let real = '/';
  while (at > 0) {
    const cached = probe.physical.get(raw.slice(0, at));
    if (cached !== undefined) {
      real = cached;
      break;
    }
    at = raw.lastIndexOf('/', at - 1);
  }
  let exists = true;
  for (let index = at; index < raw.length; ) {
    const next = raw.indexOf('/', index + 1);
    const end = next === -1 ? raw.length : next;
    const name = raw.slice(index + 1, end);
    if (name === '' || name === '.') {
      // `a//b`, `a/./b`: the same directory.
    } else if (name === '..') {
      real = posix.dirname(real);
      // Back out of a directory that does not exist (yet: the line may create it before this
      // runs), the lookups start again, so a symlink further on is still followed.
      exists = true;
    } else {
      const candidate = real === '/' ? `/${name}` : `${real}/${name}`;
      const kind = exists ? probe.linkKind(candidate) : undefined;
      if (kind === undefined) exists = false;
      // A dangling symlink leads nowhere a command could read: the link itself is what it names.
      real = kind === 'symlink' ? (probe.realpath(candidate) ?? candidate) : candidate;
    }
    probe.physical.set(raw.slice(0, end), real);
    index = end;
  }
  return real;
}

/**
 * Device files with no content to protect or leak: `2>/dev/null` is not a write anyone needs to
 * authorize. (Bash's `/dev/tcp/host/port` stays reported: it is where data leaves the machine.)
 */
export function isInertDevice(path: string): boolean {
  if (!path.startsWith('/dev/')) return false;
  return INERT_DEVICES.has(path) || path.startsWith('/dev/fd/');
}

const INERT_DEVICES = new Set(['/dev/null', '/dev/zero', '/dev/random', '/dev/urandom', '/dev/stdin', '/dev/stdout', '/dev/stderr', '/dev/tty', '/dev/full']);
