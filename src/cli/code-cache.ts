import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/**
 * Runs a CommonJS bundle the way `require` would, but compiled with a V8 code cache saved beside
 * it (`<file>.v8cache`). A hook process runs once and exits, so V8's parsing and lazy compiling
 * of a megabyte of JavaScript is a large share of its life; with the bytecode of the functions a
 * typical call runs already in the cache, most of that is skipped.
 *
 * The cache is code, so it is written only where the bundle itself is (by the build), and used
 * only for the exact source it was made from, intact: it starts with the sha256 of that source
 * followed by the cache's own bytes. V8 adds its own checks (its version, its flags) and rejects
 * a cache that does not fit, but a release build of V8 does not checksum the bytes it is handed.
 * A cache that does not fit either check is not used, and the bundle compiles as usual.
 */
export interface CachedBundle {
  exports: unknown;
  script: Script;
  /** What became of the cache: used; refused by V8 (another Node.js, other V8 flags); missing, or not for these bytes. */
  cache: 'accepted' | 'rejected' | 'absent';
}

const DIGEST_BYTES = 32;

/** Node's own module wrapper, on the first line so line numbers in stack traces stay right. */
const wrap = (source: string): string => `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;

type ModuleFunction = (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, dirname: string) => void;

function cacheFileOf(bundle: string): string {
  return `${bundle}.v8cache`;
}

/** Loads `file` (throws ENOENT when it is not there), with its code cache when one fits. */
export function requireWithCodeCache(file: string): CachedBundle {
  const bytes = readFileSync(file);
  const source = textOf(bytes);
  const cachedData = readCodeCache(file, bytes);
  const script = new Script(wrap(source), { filename: file, ...(cachedData && { cachedData }) });
  const module = { exports: {} as unknown };
  (script.runInThisContext() as ModuleFunction).call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return { exports: module.exports, script, cache: cachedData === undefined ? 'absent' : script.cachedDataRejected === true ? 'rejected' : 'accepted' };
}

/**
 * Saves the code cache of a loaded bundle. Made after the bundle has run, it holds the bytecode
 * of every function compiled so far, not only of the top level.
 */
export function writeCodeCache(file: string, loaded: CachedBundle): void {
  const target = cacheFileOf(file);
  const temporary = `${target}.${process.pid}.tmp`;
  const data = loaded.script.createCachedData();
  writeFileSync(temporary, Buffer.concat([digestOf(readFileSync(file), data), data]));
  renameSync(temporary, target);
}

function readCodeCache(file: string, source: Buffer): Buffer | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(cacheFileOf(file));
  } catch {
    return undefined;
  }
  const data = bytes.subarray(DIGEST_BYTES);
  if (data.length === 0 || !bytes.subarray(0, DIGEST_BYTES).equals(digestOf(source, data))) return undefined;
  return data;
}

/** Over the bundle's bytes as they are on disk, which for an ASCII file are its text's UTF-8 bytes too. */
function digestOf(source: Buffer, data: Buffer): Buffer {
  return createHash('sha256').update(source).update(data).digest();
}

/**
 * The bundle's text. The build makes it pure ASCII (scripts/bundle-hook.ts), which decoded as
 * latin1 is the same text without UTF-8's checks on a megabyte; anything else is read as UTF-8.
 */
function textOf(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}
