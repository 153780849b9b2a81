import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSigningKey, publicKeyInfo } from '../../src/actionpass/keys.js';
import {
  emptyTrustStore,
  readTrustIndex,
  readTrustStore,
  TrustIndex,
  trustedKey,
  updateTrustStore,
  writeTrustStore,
  type TrustedKeyEntry,
  type TrustStore,
} from '../../src/actionpass/trust-store.js';
import { SvcError } from '../../src/errors.js';
import { entry, passKey, revokedPassKey, reviewerKey, store, tempDir } from './token-fixtures.js';

async function errorOf(promise: Promise<unknown>): Promise<SvcError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SvcError) return error;
    throw error;
  }
  throw new Error('expected an SvcError');
}

async function writeJson(file: string, value: unknown): Promise<void> {
  await writeFile(file, typeof value === 'string' ? value : JSON.stringify(value));
}

describe('trust.json', () => {
  it('reads a missing file as an empty store', async () => {
    const dir = await tempDir();
    expect(await readTrustStore(path.join(dir, 'nope', 'trust.json'))).toEqual(emptyTrustStore());
  });

  it('round-trips through write and read, with mode 0644 and no temp file left behind', async () => {
    const dir = await tempDir();
    const file = path.join(dir, '.svc', 'trust.json');
    await writeTrustStore(file, store);
    expect(await readTrustStore(file)).toEqual(store);
    expect((await stat(file)).mode & 0o777).toBe(0o644);
    expect(await readdir(path.dirname(file))).toEqual(['trust.json']);
    const text = await readFile(file, 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    expect(Object.keys((JSON.parse(text) as { keys: object[] }).keys[2] ?? {})).toEqual(['name', 'alg', 'publicKey', 'role', 'reviewer', 'addedAt']);
  });

  it('refuses to write a store it would refuse to read', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'trust.json');
    const twice: TrustStore = { version: 0, keys: [entry(passKey, 'actionpass'), entry(passKey, 'actionpass')] };
    expect((await errorOf(writeTrustStore(file, twice))).code).toBe('trust_store_invalid');
    expect(await readdir(dir)).toEqual([]);
  });

  const good = entry(passKey, 'actionpass');
  const cases: Array<[string, unknown, RegExp]> = [
    ['not JSON', '{"version":0,', /not JSON/],
    ['an array', '[]', /\(top level\)/],
    ['a newer version', { version: 1, keys: [] }, /version/],
    ['an unknown member', { version: 0, keys: [], extra: true }, /extra/],
    ['a short public key', { version: 0, keys: [{ ...good, publicKey: 'AAAA' }] }, /keys\.0\.publicKey: expected standard base64/],
    ['unpadded base64', { version: 0, keys: [{ ...good, publicKey: good.publicKey.replace('=', '') }] }, /keys\.0\.publicKey/],
    ['an unknown role', { version: 0, keys: [{ ...good, role: 'admin' }] }, /keys\.0\.role/],
    ['a reviewer key without reviewer', { version: 0, keys: [{ ...good, role: 'reviewer' }] }, /keys\.0\.reviewer: a reviewer key must name/],
    ['a pass key with a reviewer', { version: 0, keys: [{ ...good, reviewer: 'user:a@b.example' }] }, /only a reviewer key names a reviewer/],
    ['a malformed reviewer', { version: 0, keys: [{ ...good, role: 'reviewer', reviewer: 'lead@acme.example' }] }, /expected user:<email>/],
    ['a time without milliseconds', { version: 0, keys: [{ ...good, addedAt: '2026-11-21T10:00:00Z' }] }, /keys\.0\.addedAt/],
    ['an impossible date', { version: 0, keys: [{ ...good, revokedAt: '2026-02-30T10:00:00.000Z' }] }, /keys\.0\.revokedAt/],
    ['a key name with a space', { version: 0, keys: [{ ...good, name: 'a b' }] }, /keys\.0\.name/],
    ['a key listed twice', { version: 0, keys: [good, { ...good, publicKey: publicKeyInfo(reviewerKey).publicKey }] }, /listed twice/],
    ['one public key under two names', { version: 0, keys: [good, { ...good, name: 'other' }] }, /same public key is listed twice/],
  ];
  it.each(cases)('refuses %s with trust_store_invalid naming the file and the problem', async (_name, content, pattern) => {
    const dir = await tempDir();
    const file = path.join(dir, 'trust.json');
    await writeJson(file, content);
    const error = await errorOf(readTrustStore(file));
    expect(error.code).toBe('trust_store_invalid');
    expect(error.message).toContain(file);
    expect(error.message).toMatch(pattern);
  });

  it('reports an unreadable path as trust_store_io', async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, 'trust.json'));
    expect((await errorOf(readTrustStore(path.join(dir, 'trust.json')))).code).toBe('trust_store_io');
  });
});

describe('trustedKey and TrustIndex', () => {
  it('trust only unrevoked keys, in their own role', () => {
    expect(trustedKey(store, passKey.name, 'actionpass')?.publicKey).toBe(publicKeyInfo(passKey).publicKey);
    expect(trustedKey(store, passKey.name, 'reviewer')).toBeUndefined();
    expect(trustedKey(store, revokedPassKey.name, 'actionpass')).toBeUndefined();
    expect(trustedKey(store, 'nobody', 'actionpass')).toBeUndefined();

    const index = TrustIndex.of(store);
    const pass = index.resolve(passKey.name, 'actionpass');
    expect(pass.ok && pass.key.publicKey.equals(passKey.publicKey)).toBe(true);
    const reviewer = index.resolve(reviewerKey.name, 'reviewer');
    expect(reviewer.ok && reviewer.key.reviewer).toBe('user:lead@acme.example');
    expect(index.resolve(passKey.name, 'reviewer')).toEqual({ ok: false, message: `key "${passKey.name}" has role actionpass, not reviewer` });
    expect(index.resolve(revokedPassKey.name, 'actionpass')).toEqual({ ok: false, message: `key "${revokedPassKey.name}" was revoked at 2026-11-01T10:00:00.000Z` });
    expect(index.resolve('__proto__', 'actionpass')).toEqual({ ok: false, message: 'key "__proto__" is not in the trust store' });
  });

  it('is a snapshot: changing the store afterwards does not change the index', () => {
    const copy: TrustStore = structuredClone(store);
    const index = TrustIndex.of(copy);
    (copy.keys[0] as TrustedKeyEntry).revokedAt = '2026-11-20T00:00:00.000Z';
    expect(index.resolve(passKey.name, 'actionpass').ok).toBe(true);
    expect(index.entries()).toEqual(store.keys);
  });

  it('readTrustIndex indexes the file', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'trust.json');
    await writeTrustStore(file, store);
    expect((await readTrustIndex(file)).resolve(passKey.name, 'actionpass').ok).toBe(true);
  });
});

describe('updateTrustStore', () => {
  it('serializes concurrent changes so none is lost', async () => {
    const dir = await tempDir();
    const file = path.join(dir, '.svc', 'trust.json');
    const keys = Array.from({ length: 12 }, (_, index) => generateSigningKey(`svc.test/concurrent-${index}`));
    await Promise.all(
      keys.map((key) =>
        updateTrustStore(file, async (current) => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          return { next: { ...current, keys: [...current.keys, entry(key, 'actionpass')] }, result: undefined };
        }),
      ),
    );
    const names = (await readTrustStore(file)).keys.map((trusted) => trusted.name).sort();
    expect(names).toEqual(keys.map((key) => key.name).sort());
    expect(await readdir(path.dirname(file))).toEqual(['trust.json']);
  });

  it('leaves the file alone when the change says so, and releases the lock when it throws', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'trust.json');
    expect(await updateTrustStore(file, () => ({ result: 7 }))).toBe(7);
    await expect(stat(file)).rejects.toThrow();
    await expect(updateTrustStore(file, () => Promise.reject(new SvcError('boom', 'boom')))).rejects.toThrow('boom');
    expect(await updateTrustStore(file, () => ({ next: emptyTrustStore(), result: 'written' }))).toBe('written');
    expect(await readTrustStore(file)).toEqual(emptyTrustStore());
  });
});
