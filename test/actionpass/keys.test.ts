import { chmod, lstat, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  decodeBase64Strict,
  generateSigningKey,
  isValidKeyName,
  keyFileName,
  loadOrCreateKey,
  publicKeyFromBase64,
  publicKeyInfo,
  readKeyFile,
  sign,
  signingKeyFromSeed,
  verifySignature,
  writeKeyFile,
} from '../../src/actionpass/keys.js';
import { SvcError } from '../../src/errors.js';

ed.hashes.sha512 = sha512;

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof SvcError ? error.code : `not SvcError: ${String(error)}`;
  }
  return undefined;
}

async function asyncCodeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return error instanceof SvcError ? error.code : `not SvcError: ${String(error)}`;
  }
  return undefined;
}

// RFC 8032 section 7.1, TEST 1 and TEST 2.
const RFC8032 = [
  {
    seed: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    publicKey: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    message: '',
    signature:
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    seed: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    publicKey: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    message: '72',
    signature:
      '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
];

describe('Ed25519 keys', () => {
  it('derives RFC 8032 test vectors from a seed and signs them exactly', () => {
    for (const vector of RFC8032) {
      const key = signingKeyFromSeed('rfc8032', Buffer.from(vector.seed, 'hex'));
      expect(key.publicKey.toString('hex')).toBe(vector.publicKey);
      const signature = sign(key, Buffer.from(vector.message, 'hex'));
      expect(signature.toString('hex')).toBe(vector.signature);
      expect(verifySignature(key.publicKey, Buffer.from(vector.message, 'hex'), signature)).toBe(true);
      // And @noble/ed25519 agrees on both.
      expect(Buffer.from(ed.getPublicKey(Buffer.from(vector.seed, 'hex'))).toString('hex')).toBe(vector.publicKey);
      expect(Buffer.from(ed.sign(Buffer.from(vector.message, 'hex'), Buffer.from(vector.seed, 'hex'))).toString('hex')).toBe(vector.signature);
    }
  });

  it('generates keys whose node:crypto signatures verify with @noble/ed25519, and the reverse', async () => {
    const key = generateSigningKey('svc.local/org:acme/abc');
    expect(key.publicKey).toHaveLength(32);
    const message = Buffer.from('the exact bytes');
    const signature = sign(key, message);
    expect(signature).toHaveLength(64);
    expect(ed.verify(signature, message, key.publicKey)).toBe(true);
    expect(await ed.verifyAsync(signature, message, key.publicKey)).toBe(true);
    expect(ed.verify(signature, Buffer.from('other bytes'), key.publicKey)).toBe(false);

    const secret = ed.utils.randomSecretKey();
    const noblePublic = ed.getPublicKey(secret);
    const nobleSignature = ed.sign(message, secret);
    expect(verifySignature(noblePublic, message, nobleSignature)).toBe(true);
    // The same seed gives the same key in both libraries.
    expect(signingKeyFromSeed('x', secret).publicKey.equals(Buffer.from(noblePublic))).toBe(true);
  });

  it('verifySignature returns false, never throws, on wrong lengths and tampering', () => {
    const key = generateSigningKey('k');
    const message = Buffer.from('m');
    const signature = sign(key, message);
    expect(verifySignature(key.publicKey, message, signature)).toBe(true);
    expect(verifySignature(key.publicKey.subarray(0, 31), message, signature)).toBe(false);
    expect(verifySignature(Buffer.concat([key.publicKey, Buffer.alloc(1)]), message, signature)).toBe(false);
    expect(verifySignature(key.publicKey, message, signature.subarray(0, 63))).toBe(false);
    expect(verifySignature(key.publicKey, message, Buffer.concat([signature, Buffer.alloc(1)]))).toBe(false);
    expect(verifySignature(key.publicKey, message, Buffer.alloc(0))).toBe(false);
    expect(verifySignature(Buffer.alloc(32, 0xff), message, signature)).toBe(false);
    expect(verifySignature(Buffer.alloc(32), message, Buffer.alloc(64))).toBe(false);
    expect(verifySignature(key.publicKey, Buffer.from('M'), signature)).toBe(false);
    const flipped = Buffer.from(signature);
    flipped[10] = (flipped[10] ?? 0) ^ 1;
    expect(verifySignature(key.publicKey, message, flipped)).toBe(false);
    expect(verifySignature(null as unknown as Uint8Array, message, signature)).toBe(false);
    expect(verifySignature(key.publicKey, 'm' as unknown as Uint8Array, signature)).toBe(false);
  });

  it('publicKeyInfo and publicKeyFromBase64 round-trip; bad keys are key_invalid', () => {
    const key = generateSigningKey('svc.local/org:acme/abc');
    const info = publicKeyInfo(key);
    expect(info).toEqual({ name: 'svc.local/org:acme/abc', alg: 'Ed25519', publicKey: key.publicKey.toString('base64') });
    expect(publicKeyFromBase64(info.publicKey).equals(key.publicKey)).toBe(true);

    expect(codeOf(() => publicKeyFromBase64(Buffer.alloc(31).toString('base64')))).toBe('key_invalid');
    expect(codeOf(() => publicKeyFromBase64(Buffer.alloc(33).toString('base64')))).toBe('key_invalid');
    expect(codeOf(() => publicKeyFromBase64(info.publicKey.replace(/=$/, '')))).toBe('key_invalid');
    expect(codeOf(() => publicKeyFromBase64(` ${info.publicKey}`))).toBe('key_invalid');
    expect(codeOf(() => publicKeyFromBase64(key.publicKey.toString('base64url')))).toBe('key_invalid');
    expect(codeOf(() => publicKeyFromBase64('not base64!'))).toBe('key_invalid');
    expect(codeOf(() => publicKeyFromBase64(''))).toBe('key_invalid');
  });

  it('decodeBase64Strict accepts only canonical padded standard base64', () => {
    expect(decodeBase64Strict('aGk=')?.toString()).toBe('hi');
    expect(decodeBase64Strict('')?.length).toBe(0);
    expect(decodeBase64Strict('aGk')).toBeUndefined();
    expect(decodeBase64Strict('aGl=')).toBeUndefined(); // non-zero trailing bits
    expect(decodeBase64Strict('aG k=')).toBeUndefined();
    expect(decodeBase64Strict('-_8=')).toBeUndefined();
    expect(decodeBase64Strict('+/8=')).toBeDefined();
  });

  it('enforces the C2SP key name rule', () => {
    for (const good of ['svc.local/org:acme/abc', 'PeterNeumann', 'a', 'ü/ключ']) {
      expect(isValidKeyName(good)).toBe(true);
      expect(codeOf(() => generateSigningKey(good))).toBeUndefined();
    }
    for (const bad of ['', 'a b', 'a+b', 'a\tb', 'a\nb', 'a\u00a0b', 'a\u2003b', 'a\u0085b', 'a\u3000b', 'a\u0000b', 'a\ud800b']) {
      expect(isValidKeyName(bad)).toBe(false);
      expect(codeOf(() => generateSigningKey(bad))).toBe('key_name_invalid');
      expect(codeOf(() => signingKeyFromSeed(bad, Buffer.alloc(32)))).toBe('key_name_invalid');
    }
    expect(codeOf(() => signingKeyFromSeed('ok', Buffer.alloc(31)))).toBe('key_invalid');
  });

  it('derives safe file names from key names', () => {
    expect(keyFileName('svc.local/org:acme/abc')).toBe('svc.local_org_acme_abc.key');
    expect(keyFileName('..')).toBe('...key');
    expect(keyFileName('../../etc/passwd')).toBe('.._.._etc_passwd.key');
    expect(keyFileName('ü😀')).toBe('__.key');
    expect(codeOf(() => keyFileName('a'.repeat(201)))).toBe('key_name_invalid');
    expect(codeOf(() => keyFileName('a b'))).toBe('key_name_invalid');
  });
});

describe('key files', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'svc-keys-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('writes a 0600 JSON key file in a 0700 directory and reads it back', async () => {
    const dir = path.join(root, 'nested', 'keys');
    const key = generateSigningKey('svc.local/org:acme/abc');
    const file = await writeKeyFile(dir, key);
    expect(file).toBe(path.join(dir, 'svc.local_org_acme_abc.key'));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);

    const json = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(['name', 'alg', 'publicKey', 'privateKey']);
    expect(json.name).toBe(key.name);
    expect(json.alg).toBe('Ed25519');
    expect(json.publicKey).toBe(key.publicKey.toString('base64'));
    const seed = Buffer.from(json.privateKey as string, 'base64');
    expect(seed).toHaveLength(32);
    expect(Buffer.from(ed.getPublicKey(seed)).equals(key.publicKey)).toBe(true);

    const read = await readKeyFile(file);
    expect(read.name).toBe(key.name);
    expect(read.publicKey.equals(key.publicKey)).toBe(true);
    const message = Buffer.from('signed by the reloaded key');
    expect(verifySignature(key.publicKey, message, sign(read, message))).toBe(true);
  });

  it('refuses to overwrite an existing key file', async () => {
    const first = generateSigningKey('k');
    const file = await writeKeyFile(root, first);
    expect(await asyncCodeOf(writeKeyFile(root, generateSigningKey('k')))).toBe('key_file_exists');
    expect((await readKeyFile(file)).publicKey.equals(first.publicKey)).toBe(true);
  });

  it('refuses key files readable or writable by group or others', async () => {
    const file = await writeKeyFile(root, generateSigningKey('k'));
    for (const mode of [0o644, 0o640, 0o604, 0o660, 0o602, 0o620]) {
      await chmod(file, mode);
      expect(await asyncCodeOf(readKeyFile(file))).toBe('key_file_permissions');
      expect(await asyncCodeOf(loadOrCreateKey(root, 'k'))).toBe('key_file_permissions');
    }
    await chmod(file, 0o400);
    expect(await asyncCodeOf(readKeyFile(file))).toBeUndefined();
    await chmod(file, 0o600);
    expect(await asyncCodeOf(readKeyFile(file))).toBeUndefined();
  });

  it('refuses a symlinked key file, even one pointing at a valid 0600 key', async () => {
    const realDir = path.join(root, 'real');
    const target = await writeKeyFile(realDir, generateSigningKey('k'));
    const linkDir = path.join(root, 'keys');
    await writeKeyFile(linkDir, generateSigningKey('other'));
    const link = path.join(linkDir, 'k.key');
    await symlink(target, link);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await asyncCodeOf(readKeyFile(link))).toBe('key_file_symlink');
    expect(await asyncCodeOf(loadOrCreateKey(linkDir, 'k'))).toBe('key_file_symlink');
    // Nor does writing follow a dangling link to create a file elsewhere.
    const dangling = path.join(linkDir, 'd.key');
    await symlink(path.join(root, 'elsewhere.key'), dangling);
    expect(await asyncCodeOf(writeKeyFile(linkDir, generateSigningKey('d')))).toBe('key_file_exists');
    await expect(stat(path.join(root, 'elsewhere.key'))).rejects.toThrow();
  });

  it('rejects malformed key files with key_file_invalid', async () => {
    const key = generateSigningKey('k');
    const file = await writeKeyFile(root, key);
    const good = JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
    const other = generateSigningKey('k');
    const cases: [string, string][] = [
      ['not json', 'nope'],
      ['array', '[]'],
      ['wrong public key', JSON.stringify({ ...good, publicKey: other.publicKey.toString('base64') })],
      ['short seed', JSON.stringify({ ...good, privateKey: Buffer.alloc(31).toString('base64') })],
      ['unpadded seed', JSON.stringify({ ...good, privateKey: (good.privateKey ?? '').replace(/=+$/, '') })],
      ['wrong alg', JSON.stringify({ ...good, alg: 'RSA' })],
      ['extra field', JSON.stringify({ ...good, extra: 1 })],
      ['missing field', JSON.stringify({ name: good.name, alg: good.alg, publicKey: good.publicKey })],
      ['bad name', JSON.stringify({ ...good, name: 'a b' })],
      ['too large', ' '.repeat(5000)],
    ];
    for (const [label, contents] of cases) {
      const bad = path.join(root, `bad-${label.replace(/ /g, '-')}.key`);
      await writeFile(bad, contents, { mode: 0o600 });
      expect([label, await asyncCodeOf(readKeyFile(bad))]).toEqual([label, 'key_file_invalid']);
    }
    expect(await asyncCodeOf(readKeyFile(path.join(root, 'missing.key')))).toBe('key_file_missing');
    expect(await asyncCodeOf(readKeyFile(root))).toBe('key_file_invalid');
  });

  it('loadOrCreateKey creates once, then loads the same key', async () => {
    const dir = path.join(root, '.svc', 'keys');
    const name = 'svc.local/org:acme/abc';
    const created = await loadOrCreateKey(dir, name);
    const loaded = await loadOrCreateKey(dir, name);
    expect(loaded.name).toBe(name);
    expect(loaded.publicKey.equals(created.publicKey)).toBe(true);
    expect((await stat(path.join(dir, keyFileName(name)))).mode & 0o777).toBe(0o600);
  });

  it('loadOrCreateKey settles concurrent first use on one key', async () => {
    const keys = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateKey(root, 'race')));
    for (const key of keys) expect(key.publicKey.equals((await readKeyFile(path.join(root, 'race.key'))).publicKey)).toBe(true);
  });

  it('loadOrCreateKey refuses a file holding a different name that maps to the same file', async () => {
    await loadOrCreateKey(root, 'org:acme');
    expect(keyFileName('org/acme')).toBe(keyFileName('org:acme'));
    expect(await asyncCodeOf(loadOrCreateKey(root, 'org/acme'))).toBe('key_name_mismatch');
    expect(await asyncCodeOf(loadOrCreateKey(root, 'bad name'))).toBe('key_name_invalid');
  });
});
