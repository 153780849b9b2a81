/**
 * Ed25519 signing keys (DESIGN.md section 6, "Keys").
 *
 * Signing and verification use node:crypto. A key is named: the name is a C2SP signed-note key
 * name (non-empty, no Unicode spaces, no `+`), for example `svc.local/org:acme/abc`, and it is the
 * name checkpoints are signed under. Private keys live in one JSON file each, mode 0600:
 *
 *   { "name": "...", "alg": "Ed25519", "publicKey": "<base64 32 bytes>", "privateKey": "<base64 32-byte seed>" }
 *
 * Error codes: key_invalid, key_name_invalid, key_name_mismatch, key_file_missing,
 * key_file_exists, key_file_invalid, key_file_permissions, key_file_symlink, key_file_io.
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign as cryptoSign,
  verify as cryptoVerify,
  type KeyObject,
} from 'node:crypto';
import { constants as fsConstants, type Stats } from 'node:fs';
import { lstat, mkdir, open, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { SvcError } from '../errors.js';
import { fsyncDirectory } from '../fs/durable-file.js';

export { fsyncDirectory };

export type SigningKey = {
  name: string;
  /** The 32 raw bytes of the Ed25519 public key (RFC 8032 encoding). */
  publicKey: Buffer;
  privateKey: KeyObject;
};

/** How a public key is written in the genesis record and in trust.json. */
export type PublicKeyInfo = {
  name: string;
  alg: 'Ed25519';
  /** Standard base64 of the 32 raw public key bytes. */
  publicKey: string;
};

export const ED25519_PUBLIC_KEY_LENGTH = 32;
export const ED25519_SEED_LENGTH = 32;
export const ED25519_SIGNATURE_LENGTH = 64;

/** Longest key name that still makes a portable file name (255 bytes) once sanitized. */
const MAX_KEY_FILE_NAME_LENGTH = 200;
/** A key file is about 200 bytes; anything much larger is not one. */
const MAX_KEY_FILE_BYTES = 4096;

/** RFC 8410 PKCS#8 DER prefix of an Ed25519 private key; the 32-byte seed follows. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

// ---------------------------------------------------------------------------------------------
// Names and encodings

const WHITE_SPACE = /\p{White_Space}/u; // exactly Go's unicode.IsSpace, which the C2SP rule follows
const CONTROL = /\p{Cc}/u;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * C2SP signed-note key name rule: non-empty, well-formed Unicode, no Unicode spaces and no `+`.
 * svc also refuses control characters, which a signed note may not contain anyway.
 */
export function isValidKeyName(name: unknown): name is string {
  return (
    typeof name === 'string' &&
    name.length > 0 &&
    !WHITE_SPACE.test(name) &&
    !name.includes('+') &&
    !CONTROL.test(name) &&
    !LONE_SURROGATE.test(name)
  );
}

export function assertKeyName(name: unknown): asserts name is string {
  if (!isValidKeyName(name)) {
    throw new SvcError(
      'key_name_invalid',
      `invalid key name ${JSON.stringify(name)}: a key name is non-empty and contains no spaces, no "+" and no control characters`,
    );
  }
}

/**
 * Decodes standard base64 (RFC 4648 section 4) with padding, strictly: the text must be exactly
 * what encoding the decoded bytes gives back (no whitespace, no missing padding, no URL-safe
 * alphabet, no non-zero trailing bits). Returns undefined for anything else.
 */
export function decodeBase64Strict(text: string): Buffer | undefined {
  if (typeof text !== 'string') return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}

/** Parses a base64 public key as written in trust.json or given to `--pubkey`: exactly 32 bytes. */
export function publicKeyFromBase64(text: string): Buffer {
  const bytes = decodeBase64Strict(text);
  if (bytes === undefined) throw new SvcError('key_invalid', 'public key is not standard base64 with padding');
  if (bytes.length !== ED25519_PUBLIC_KEY_LENGTH) {
    throw new SvcError('key_invalid', `an Ed25519 public key is 32 bytes, got ${bytes.length}`);
  }
  return bytes;
}

// ---------------------------------------------------------------------------------------------
// Keys, signing, verification

function rawPublicKey(publicKey: KeyObject): Buffer {
  const x = publicKey.export({ format: 'jwk' }).x;
  const raw = typeof x === 'string' ? Buffer.from(x, 'base64url') : Buffer.alloc(0);
  if (raw.length !== ED25519_PUBLIC_KEY_LENGTH) throw new SvcError('key_invalid', 'not an Ed25519 public key');
  return raw;
}

export function generateSigningKey(name: string): SigningKey {
  assertKeyName(name);
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { name, publicKey: rawPublicKey(publicKey), privateKey };
}

/**
 * The key whose RFC 8032 private key (seed) is `seed32`.
 *
 * Imported as PKCS#8 (RFC 8410) rather than as a JWK: a JWK import needs `x`, which is what we
 * are computing, and node:crypto silently ignores an `x` that does not match `d`. The public key
 * is always derived from the seed here, never taken on trust.
 */
export function signingKeyFromSeed(name: string, seed32: Uint8Array): SigningKey {
  assertKeyName(name);
  if (!(seed32 instanceof Uint8Array) || seed32.length !== ED25519_SEED_LENGTH) {
    throw new SvcError('key_invalid', 'an Ed25519 private key seed is 32 bytes');
  }
  const der = Buffer.concat([PKCS8_ED25519_PREFIX, seed32]);
  try {
    const privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
    return { name, publicKey: rawPublicKey(createPublicKey(privateKey)), privateKey };
  } finally {
    der.fill(0);
  }
}

export function publicKeyInfo(key: SigningKey): PublicKeyInfo {
  return { name: key.name, alg: 'Ed25519', publicKey: key.publicKey.toString('base64') };
}

/** Ed25519 signature (64 bytes) of `bytes`. */
export function sign(key: SigningKey, bytes: Uint8Array): Buffer {
  return cryptoSign(null, bytes, key.privateKey);
}

const publicKeyCache = new Map<string, KeyObject>();
const PUBLIC_KEY_CACHE_LIMIT = 256;

function publicKeyObject(publicKey32: Uint8Array): KeyObject {
  const x = Buffer.from(publicKey32.buffer, publicKey32.byteOffset, publicKey32.byteLength).toString('base64url');
  let key = publicKeyCache.get(x);
  if (key === undefined) {
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    if (publicKeyCache.size >= PUBLIC_KEY_CACHE_LIMIT) {
      const oldest = publicKeyCache.keys().next();
      if (oldest.done !== true) publicKeyCache.delete(oldest.value);
    }
    publicKeyCache.set(x, key);
  }
  return key;
}

/** Whether `signature` is a valid Ed25519 signature of `bytes` by `publicKey32`. Never throws. */
export function verifySignature(publicKey32: Uint8Array, bytes: Uint8Array, signature: Uint8Array): boolean {
  try {
    if (!(publicKey32 instanceof Uint8Array) || publicKey32.length !== ED25519_PUBLIC_KEY_LENGTH) return false;
    if (!(signature instanceof Uint8Array) || signature.length !== ED25519_SIGNATURE_LENGTH) return false;
    if (!(bytes instanceof Uint8Array)) return false;
    return cryptoVerify(null, bytes, publicKeyObject(publicKey32), signature);
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Key files

/**
 * The file name of a key: the name with every character outside `[A-Za-z0-9._-]` replaced by `_`,
 * plus `.key`. Distinct names can share a file name (`a/b`, `a:b`); `loadOrCreateKey` therefore
 * checks the name stored in the file.
 */
export function keyFileName(name: string): string {
  assertKeyName(name);
  if (name.length > MAX_KEY_FILE_NAME_LENGTH) {
    throw new SvcError('key_name_invalid', `key name longer than ${MAX_KEY_FILE_NAME_LENGTH} characters`);
  }
  return `${name.replace(/[^A-Za-z0-9._-]/gu, '_')}.key`;
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined;
}

function ioError(action: string, file: string, error: unknown): SvcError {
  const detail = error instanceof Error ? error.message : String(error);
  return new SvcError('key_file_io', `cannot ${action} ${file}: ${detail}`, { cause: error });
}

/**
 * Writes `key` to `<dir>/<keyFileName(key.name)>` with mode 0600, durably: exclusive create,
 * write, fsync, close, fsync of the directory (and of the parents of directories it created,
 * which are created with mode 0700). Refuses to overwrite an existing file (`key_file_exists`).
 * Returns the path written.
 */
export async function writeKeyFile(dir: string, key: SigningKey): Promise<string> {
  const file = path.join(dir, keyFileName(key.name));
  let firstCreated: string | undefined;
  try {
    firstCreated = await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw ioError('create directory', dir, error);
  }

  const jwk = key.privateKey.export({ format: 'jwk' });
  if (typeof jwk.d !== 'string' || key.privateKey.asymmetricKeyType !== 'ed25519') {
    throw new SvcError('key_invalid', 'not an Ed25519 private key');
  }
  const seed = Buffer.from(jwk.d, 'base64url');
  const contents = `${JSON.stringify(
    { name: key.name, alg: 'Ed25519', publicKey: key.publicKey.toString('base64'), privateKey: seed.toString('base64') },
    null,
    2,
  )}\n`;
  seed.fill(0);

  let handle: FileHandle;
  try {
    handle = await open(file, 'wx', 0o600);
  } catch (error) {
    if (errorCode(error) === 'EEXIST') {
      throw new SvcError('key_file_exists', `key file ${file} already exists; refusing to overwrite it`, { cause: error });
    }
    throw ioError('create', file, error);
  }
  try {
    await handle.chmod(0o600); // exact mode whatever the umask
    await handle.writeFile(contents, 'utf8');
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(file).catch(() => undefined);
    throw ioError('write', file, error);
  }
  try {
    await handle.close();
    await fsyncDirectory(dir);
    if (firstCreated !== undefined) {
      // New directories are durable only once their parents are synced too.
      const stop = path.dirname(path.resolve(firstCreated));
      for (let parent = path.dirname(path.resolve(dir)); ; parent = path.dirname(parent)) {
        await fsyncDirectory(parent);
        if (parent === stop || parent === path.dirname(parent)) break;
      }
    }
  } catch (error) {
    throw ioError('sync', file, error);
  }
  return file;
}

const KeyFileSchema = z.strictObject({
  name: z.string(),
  alg: z.literal('Ed25519'),
  publicKey: z.string(),
  privateKey: z.string(),
});

function checkKeyFileStats(file: string, stats: Stats): void {
  if (stats.isSymbolicLink()) throw new SvcError('key_file_symlink', `key file ${file} is a symbolic link; refusing it`);
  if (!stats.isFile()) throw new SvcError('key_file_invalid', `key file ${file} is not a regular file`);
  if (process.platform !== 'win32' && (stats.mode & 0o077) !== 0) {
    throw new SvcError(
      'key_file_permissions',
      `key file ${file} has mode 0${(stats.mode & 0o777).toString(8)}, readable or writable by group or others; run chmod 600 on it`,
    );
  }
  if (stats.size > MAX_KEY_FILE_BYTES) throw new SvcError('key_file_invalid', `key file ${file} is too large to be a key file`);
}

/**
 * Reads a key file written by `writeKeyFile`. Refuses symbolic links (`key_file_symlink`), files
 * accessible by group or others (`key_file_permissions`), and files whose shape is wrong or whose
 * seed does not derive the stated public key (`key_file_invalid`). A missing file is
 * `key_file_missing`.
 */
export async function readKeyFile(file: string): Promise<SigningKey> {
  let linkStats: Stats;
  try {
    linkStats = await lstat(file);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') throw new SvcError('key_file_missing', `key file ${file} does not exist`, { cause: error });
    throw ioError('read', file, error);
  }
  checkKeyFileStats(file, linkStats);

  let handle: FileHandle;
  try {
    handle = await open(file, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0));
  } catch (error) {
    if (errorCode(error) === 'ELOOP') throw new SvcError('key_file_symlink', `key file ${file} is a symbolic link; refusing it`);
    throw ioError('open', file, error);
  }
  let raw: Buffer;
  try {
    // Check again on the open file: the path may have been swapped since lstat.
    const stats = await handle.stat();
    checkKeyFileStats(file, stats);
    if (stats.ino !== linkStats.ino || stats.dev !== linkStats.dev) {
      throw new SvcError('key_file_invalid', `key file ${file} changed while it was being opened`);
    }
    raw = await handle.readFile();
  } catch (error) {
    if (error instanceof SvcError) throw error;
    throw ioError('read', file, error);
  } finally {
    await handle.close().catch(() => undefined);
  }

  const invalid = (why: string) => new SvcError('key_file_invalid', `key file ${file} is invalid: ${why}`);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
  } catch {
    throw invalid('not UTF-8 JSON');
  } finally {
    raw.fill(0);
  }
  const parsed = KeyFileSchema.safeParse(json);
  if (!parsed.success) {
    throw invalid(parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; '));
  }
  const { name, publicKey, privateKey } = parsed.data;
  if (!isValidKeyName(name)) throw invalid(`key name ${JSON.stringify(name)} is not a valid key name`);
  const stated = decodeBase64Strict(publicKey);
  if (stated?.length !== ED25519_PUBLIC_KEY_LENGTH) throw invalid('publicKey is not base64 of 32 bytes');
  const seed = decodeBase64Strict(privateKey);
  if (seed?.length !== ED25519_SEED_LENGTH) throw invalid('privateKey is not base64 of a 32-byte seed');
  let key: SigningKey;
  try {
    key = signingKeyFromSeed(name, seed);
  } finally {
    seed.fill(0);
  }
  if (!key.publicKey.equals(stated)) throw invalid('privateKey does not derive the stated publicKey');
  return key;
}

/**
 * The key named `name` from `<dir>`, created (and written durably) on first use. Throws
 * `key_name_mismatch` when the file for this name holds a key with a different name (two names
 * that sanitize to the same file name).
 */
export async function loadOrCreateKey(dir: string, name: string): Promise<SigningKey> {
  const file = path.join(dir, keyFileName(name));
  let key: SigningKey;
  try {
    key = await readKeyFile(file);
  } catch (error) {
    if (!(error instanceof SvcError && error.code === 'key_file_missing')) throw error;
    try {
      const created = generateSigningKey(name);
      await writeKeyFile(dir, created);
      return created;
    } catch (writeError) {
      // Another process created it between our read and our write: use theirs.
      if (!(writeError instanceof SvcError && writeError.code === 'key_file_exists')) throw writeError;
      key = await readKeyFile(file);
    }
  }
  if (key.name !== name) {
    throw new SvcError('key_name_mismatch', `key file ${file} holds key ${JSON.stringify(key.name)}, not ${JSON.stringify(name)}`);
  }
  return key;
}
