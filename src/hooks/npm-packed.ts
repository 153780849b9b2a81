import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { listsExactly } from './git-ignored.js';

/**
 * Whether `npm pack` or `npm publish` of the package in `root` leaves `file` (found under it) out
 * of the tarball it makes (npm-packlist; pnpm and yarn pack the same way):
 * - with a `files` list in package.json, only what it names is packed (and package.json, the
 *   README, the licence, `main` and `bin`, which are never a secret unless named there);
 * - without one, everything but what an ignore file lists: each directory's `.npmignore`, or its
 *   `.gitignore` when it has none (so a gitignored `.env` stays home, until someone adds an
 *   `.npmignore` that does not list it).
 * Only the plainest cases count, and every doubt means "packed": a `files` entry with a glob or a
 * negation could name anything, and an ignore rule counts only as listsExactly reads it.
 */
export function leftOutOfPackage(file: string, root: string): boolean {
  const path = relative(root, file).split(sep);
  if (path.length === 0 || path[0] === '' || path[0] === '..') return false;
  const manifest = readManifest(join(root, 'package.json'));
  if (manifest === undefined) return false;
  if (manifest.files !== undefined) return manifest.files.every((entry) => !namesOrHolds(entry, path)) && !manifest.always.some((entry) => namesOrHolds(entry, path));
  let dir = root;
  for (const [index, name] of path.entries()) {
    const npmignore = join(dir, '.npmignore');
    if (listsExactly(existsSync(npmignore) ? npmignore : join(dir, '.gitignore'), name, index < path.length - 1)) return true;
    dir = join(dir, name);
  }
  return false;
}

interface Manifest {
  /** Plain paths, when package.json has a `files` list that holds only those. */
  files?: string[];
  /** `main` and `bin`: packed whatever `files` says. */
  always: string[];
}

/** Larger manifests are not parsed: the answer is then "packed". */
const MAX_MANIFEST_BYTES = 1024 * 1024;

/** undefined when there is no package.json to read, or its `files` could name anything. */
function readManifest(file: string): Manifest | undefined {
  let parsed: unknown;
  try {
    if (statSync(file).size > MAX_MANIFEST_BYTES) return undefined;
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { files, main, bin } = parsed as { files?: unknown; main?: unknown; bin?: unknown };
  const always = [main, ...(typeof bin === 'object' && bin !== null ? Object.values(bin) : [bin])].filter((entry): entry is string => typeof entry === 'string');
  if (files === undefined) return { always };
  if (!Array.isArray(files) || !files.every((entry) => typeof entry === 'string' && !/[*?[\]{}!\\]/.test(entry))) return undefined;
  return { files, always };
}

/** Whether the package-relative `entry` is the file at `path` or a directory holding it. */
function namesOrHolds(entry: string, path: readonly string[]): boolean {
  const named = entry.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (named.some((segment) => segment === '..')) return true;
  return named.length <= path.length && named.every((segment, index) => segment === path[index]);
}
