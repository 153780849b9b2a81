import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { importJWK, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { issueActionPass } from '../../src/actionpass/actionpass-token.js';
import { loadPassSigner } from '../../src/actionpass/key-ring.js';
import { keyFileName } from '../../src/actionpass/keys.js';
import type { TrustStore } from '../../src/actionpass/trust-store.js';
import { runCli } from '../support/cli.js';
import { AUDIENCE, jwkOf, passClaims, TENANT, tempDir } from './token-fixtures.js';

/**
 * `svc keys` as a child process, the way a person or CI runs it (needs `npm run build`). Reviewer
 * keys go to a directory outside every workspace, named by SVC_REVIEWER_KEYS_DIR, which the child
 * inherits.
 */

let reviewerDir: string;

beforeAll(async () => {
  reviewerDir = path.join(await tempDir('svc-reviewer-home-'), 'reviewer-keys');
  process.env.SVC_REVIEWER_KEYS_DIR = reviewerDir;
});

async function workspace(): Promise<string> {
  const dir = await tempDir('svc-keys-cli-');
  await writeFile(path.join(dir, 'svc.yml'), `tenant: ${TENANT}\n`);
  return dir;
}

async function json<T>(args: string[], cwd: string): Promise<T> {
  const result = await runCli(args, { cwd });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as T;
}

interface ListedKey {
  name: string;
  role: string;
  status: 'active' | 'trusted' | 'revoked';
  privateKey: boolean;
  reviewer?: string;
  revokedAt?: string;
}

describe('svc keys', () => {
  it('init, rotate, list, revoke, add-reviewer: the whole life of the keys', async () => {
    const cwd = await workspace();
    const init = await json<{ created: boolean; key: { name: string; publicKey: string }; trustFile: string; keysDir: string }>(['keys', 'init', '--json'], cwd);
    expect(init.created).toBe(true);
    expect(init.key.name).toMatch(/^svc\.local\/org:acme\/pass-\d{8}-[0-9a-f]{4}$/);
    expect(init.trustFile).toBe(path.join(cwd, '.svc', 'trust.json'));
    expect((await stat(path.join(init.keysDir, keyFileName(init.key.name)))).mode & 0o777).toBe(0o600);
    expect((await stat(init.trustFile)).mode & 0o777).toBe(0o644);

    const again = await json<{ created: boolean; key: { name: string } }>(['keys', 'init', '--json'], cwd);
    expect(again).toMatchObject({ created: false, key: { name: init.key.name } });

    const rotated = await json<{ key: { name: string }; stillTrusted: string[] }>(['keys', 'rotate', '--json'], cwd);
    expect(rotated.key.name).not.toBe(init.key.name);
    expect(rotated.stillTrusted).toEqual([init.key.name]);

    const reviewer = await json<{ name: string; reviewer: string; file: string }>(['keys', 'add-reviewer', '--as', 'user:lead@acme.example', '--json'], cwd);
    expect(reviewer.reviewer).toBe('user:lead@acme.example');
    expect(path.dirname(reviewer.file)).toBe(reviewerDir);
    expect((await stat(reviewer.file)).mode & 0o777).toBe(0o600);

    let listed = await json<{ keys: ListedKey[] }>(['keys', 'list', '--json'], cwd);
    expect(listed.keys.map(({ name, role, status, privateKey }) => ({ name, role, status, privateKey }))).toEqual([
      { name: init.key.name, role: 'actionpass', status: 'trusted', privateKey: true },
      { name: rotated.key.name, role: 'actionpass', status: 'active', privateKey: true },
      { name: reviewer.name, role: 'reviewer', status: 'trusted', privateKey: true },
    ]);

    const revoked = await json<{ name: string; changed: boolean; revokedAt: string }>(['keys', 'revoke', init.key.name, '--json'], cwd);
    expect(revoked).toMatchObject({ name: init.key.name, changed: true });
    listed = await json<{ keys: ListedKey[] }>(['keys', 'list', '--json'], cwd);
    expect(listed.keys[0]).toMatchObject({ status: 'revoked', revokedAt: revoked.revokedAt });

    const text = await runCli(['keys', 'list'], { cwd });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`active   actionpass ${rotated.key.name}`);
    expect(text.stdout).toContain(`revoked  actionpass ${init.key.name}`);
    expect(text.stdout).toContain(`${reviewer.name} for user:lead@acme.example`);

    // The workspace holds no reviewer secret.
    expect((await readdir(path.join(cwd, '.svc', 'keys'))).every((file) => file.startsWith('svc.local_'))).toBe(true);
  });

  it('writes keys a JOSE library verifies with nothing but trust.json', async () => {
    const cwd = await workspace();
    await json(['keys', 'init', '--json'], cwd);
    const { key } = await loadPassSigner({ keysDir: path.join(cwd, '.svc', 'keys'), trustFile: path.join(cwd, '.svc', 'trust.json'), tenant: TENANT });
    const token = issueActionPass(key, passClaims());
    const trustJson = JSON.parse(await readFile(path.join(cwd, '.svc', 'trust.json'), 'utf8')) as TrustStore;
    const entry = trustJson.keys.find((candidate) => candidate.name === key.name);
    expect(entry).toBeDefined();
    const { payload } = await jwtVerify(token, await importJWK(jwkOf(entry ?? { publicKey: '' }), 'EdDSA'), {
      typ: 'svc-actionpass+jwt',
      audience: AUDIENCE,
      currentDate: new Date(passClaims().iat * 1000),
    });
    expect(payload.tenant).toBe(TENANT);
  });

  it('reads keys.dir and keys.trust from --config, relative to the config file', async () => {
    const cwd = await workspace();
    const configDir = path.join(cwd, 'elsewhere');
    await mkdir(configDir);
    await writeFile(path.join(configDir, 'custom.yml'), 'tenant: org:globex\nkeys:\n  dir: state/keys\n  trust: state/trust.json\n');
    const init = await json<{ key: { name: string }; trustFile: string }>(['keys', 'init', '--config', path.join(configDir, 'custom.yml'), '--json'], cwd);
    expect(init.key.name).toMatch(/^svc\.local\/org:globex\/pass-/);
    expect(init.trustFile).toBe(path.join(configDir, 'state', 'trust.json'));
  });

  it('lists an empty store without any svc.yml, but needs one to create keys', async () => {
    const cwd = await tempDir('svc-keys-cli-empty-');
    const listed = await json<{ keys: unknown[] }>(['keys', 'list', '--json'], cwd);
    expect(listed.keys).toEqual([]);
    const init = await runCli(['keys', 'init'], { cwd });
    expect(init.code).toBe(2);
    expect(init.stderr).toMatch(/svc\.yml does not exist.*\[config_missing\]/);
  });

  it('answers usage and input errors with exit 2, one line and a code', async () => {
    const cwd = await workspace();
    const unknown = await runCli(['keys', 'revoke', 'svc.local/org:acme/pass-nope'], { cwd });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no key named "svc\.local\/org:acme\/pass-nope" .*\[key_unknown\]/);

    const badIdentity = await runCli(['keys', 'add-reviewer', '--as', 'lead@acme.example', '--json'], { cwd });
    expect(badIdentity.code).toBe(2);
    expect(JSON.parse(badIdentity.stdout)).toEqual({ error: { code: 'reviewer_invalid', message: '"lead@acme.example" is not a reviewer identity; expected user:<email>' } });

    const missing = await runCli(['keys', 'add-reviewer'], { cwd });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--as <identity>' not specified");

    await writeFile(path.join(cwd, '.svc-trust-broken.json'), '{');
    await writeFile(path.join(cwd, 'svc.yml'), `tenant: ${TENANT}\nkeys:\n  trust: .svc-trust-broken.json\n`);
    const broken = await runCli(['keys', 'list'], { cwd });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/\.svc-trust-broken\.json is not a valid trust store: not JSON.*\[trust_store_invalid\]/);
    for (const result of [unknown, missing, broken]) expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('explains itself in --help, with examples', async () => {
    const cwd = await workspace();
    for (const command of [[], ['list'], ['init'], ['rotate'], ['revoke'], ['add-reviewer']]) {
      const help = await runCli(['keys', ...command, '--help'], { cwd });
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('Example');
    }
  });
});
