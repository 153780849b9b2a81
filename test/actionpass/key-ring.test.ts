import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { issueActionPass, verifyActionPass } from '../../src/actionpass/actionpass-token.js';
import { signApprovalArtifact, verifyApprovalArtifact } from '../../src/actionpass/approval-artifact.js';
import {
  addReviewer,
  loadPassSigner,
  loadReviewerKey,
  passKeyName,
  reviewerKeyName,
  reviewerKeysDir,
  revokeKey,
  rotatePassKey,
  type PassKeyOptions,
} from '../../src/actionpass/key-ring.js';
import { generateSigningKey, isValidKeyName, keyFileName, writeKeyFile } from '../../src/actionpass/keys.js';
import { readTrustIndex, readTrustStore } from '../../src/actionpass/trust-store.js';
import { SvcError } from '../../src/errors.js';
import { approvalClaims, AUDIENCE, passClaims, PAYLOAD_HASH, REVIEWER, TENANT, tempDir } from './token-fixtures.js';

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return error instanceof SvcError ? error.code : `not SvcError: ${String(error)}`;
  }
  return undefined;
}

async function workspace(): Promise<PassKeyOptions & { root: string; reviewerDir: string }> {
  const root = await tempDir('svc-workspace-');
  const outside = await tempDir('svc-reviewer-home-');
  return {
    root,
    keysDir: path.join(root, '.svc', 'keys'),
    trustFile: path.join(root, '.svc', 'trust.json'),
    tenant: TENANT,
    reviewerDir: path.join(outside, 'reviewer-keys'),
  };
}

function clock(iso: string): () => Date {
  return () => new Date(iso);
}

/** Verifies a pass the way an adapter would, against trust.json as it is on disk now. */
async function verifyNow(trustFile: string, token: string) {
  const trust = await readTrustIndex(trustFile);
  const claims = passClaims();
  return verifyActionPass(token, { trust, nowMs: claims.iat * 1000, audience: AUDIENCE, tenant: TENANT, payloadHash: PAYLOAD_HASH, isPassUsed: () => false });
}

describe('key names and places', () => {
  it('names pass keys svc.local/<tenant>/pass-<yyyymmdd>-<4 hex> and reviewer keys reviewer/<user:email>/<4 hex>', () => {
    expect(passKeyName('org:acme', new Date('2026-11-21T23:59:59.000Z'), 'ab12')).toBe('svc.local/org:acme/pass-20261121-ab12');
    expect(passKeyName('org:acme', new Date())).toMatch(/^svc\.local\/org:acme\/pass-\d{8}-[0-9a-f]{4}$/);
    expect(reviewerKeyName('user:lead@acme.example', 'ab12')).toBe('reviewer/user:lead@acme.example/ab12');
    // "+" may not appear in a key name; the identity keeps it, the name encodes it.
    const plus = reviewerKeyName('user:lead+svc%x@acme.example', 'ab12');
    expect(plus).toBe('reviewer/user:lead%2Bsvc%25x@acme.example/ab12');
    expect(isValidKeyName(plus)).toBe(true);
  });

  it('finds reviewer keys in $SVC_REVIEWER_KEYS_DIR, else $XDG_CONFIG_HOME/svc, else ~/.config/svc', () => {
    expect(reviewerKeysDir({ SVC_REVIEWER_KEYS_DIR: '/keys/here', XDG_CONFIG_HOME: '/xdg' })).toBe('/keys/here');
    expect(reviewerKeysDir({ SVC_REVIEWER_KEYS_DIR: '', XDG_CONFIG_HOME: '/xdg' })).toBe('/xdg/svc/reviewer-keys');
    expect(reviewerKeysDir({ XDG_CONFIG_HOME: 'relative/is/ignored' })).toBe(path.join(homedir(), '.config', 'svc', 'reviewer-keys'));
    expect(reviewerKeysDir({})).toBe(path.join(homedir(), '.config', 'svc', 'reviewer-keys'));
  });
});

describe('loadPassSigner', () => {
  it('creates the key on first use (0600 file, trust.json entry) and returns the same one afterwards', async () => {
    const ws = await workspace();
    const first = await loadPassSigner({ ...ws, now: clock('2026-11-21T10:00:00.000Z') });
    expect(first.created).toBe(true);
    expect(first.key.name).toMatch(/^svc\.local\/org:acme\/pass-20261121-[0-9a-f]{4}$/);
    expect((await stat(path.join(ws.keysDir, keyFileName(first.key.name)))).mode & 0o777).toBe(0o600);
    const store = await readTrustStore(ws.trustFile);
    expect(store.keys).toEqual([{ name: first.key.name, alg: 'Ed25519', publicKey: first.key.publicKey.toString('base64'), role: 'actionpass', addedAt: '2026-11-21T10:00:00.000Z' }]);
    expect(first.trust.resolve(first.key.name, 'actionpass').ok).toBe(true);

    const again = await loadPassSigner(ws);
    expect(again.created).toBe(false);
    expect(again.key.publicKey.equals(first.key.publicKey)).toBe(true);
    expect((await readTrustStore(ws.trustFile)).keys).toHaveLength(1);
  });

  it('creates exactly one key when several processes start at once', async () => {
    const ws = await workspace();
    const signers = await Promise.all(Array.from({ length: 6 }, () => loadPassSigner(ws)));
    expect(new Set(signers.map((signer) => signer.key.name)).size).toBe(1);
    expect(signers.filter((signer) => signer.created)).toHaveLength(1);
    expect((await readTrustStore(ws.trustFile)).keys).toHaveLength(1);
    expect(await readdir(ws.keysDir)).toHaveLength(1);
  });

  it('skips a newer key whose private key is not on this machine', async () => {
    const ws = await workspace();
    const older = await loadPassSigner({ ...ws, now: clock('2026-11-20T10:00:00.000Z') });
    const newer = await rotatePassKey({ ...ws, now: clock('2026-11-21T10:00:00.000Z') });
    await rm(path.join(ws.keysDir, keyFileName(newer.key.name)));
    expect((await loadPassSigner(ws)).key.name).toBe(older.key.name);
  });

  it('refuses a key file that holds a different key than trust.json lists', async () => {
    const ws = await workspace();
    const { key } = await loadPassSigner(ws);
    await rm(path.join(ws.keysDir, keyFileName(key.name)));
    await writeKeyFile(ws.keysDir, generateSigningKey(key.name));
    expect(await codeOf(loadPassSigner(ws))).toBe('key_mismatch');
  });

  it('refuses an invalid trust.json instead of starting over', async () => {
    const ws = await workspace();
    await loadPassSigner(ws);
    await writeFile(ws.trustFile, '{"version":0,"keys":[{"name":"x"}]}');
    expect(await codeOf(loadPassSigner(ws))).toBe('trust_store_invalid');
  });
});

describe('rotation and revocation', () => {
  it('rotation activates a new key while passes signed by the old one keep verifying; revocation stops them', async () => {
    const ws = await workspace();
    const old = await loadPassSigner({ ...ws, now: clock('2026-11-21T10:00:00.000Z') });
    const oldPass = issueActionPass(old.key, passClaims());

    const rotated = await rotatePassKey({ ...ws, now: clock('2026-11-21T11:00:00.000Z') });
    expect(rotated.created).toBe(true);
    expect(rotated.key.name).not.toBe(old.key.name);
    expect((await loadPassSigner(ws)).key.name).toBe(rotated.key.name);
    expect((await verifyNow(ws.trustFile, oldPass)).ok).toBe(true);
    expect(verifyActionPass(oldPass, { trust: rotated.trust, nowMs: passClaims().iat * 1000, audience: AUDIENCE, tenant: TENANT, payloadHash: PAYLOAD_HASH, isPassUsed: () => false }).ok).toBe(true);

    const revocation = await revokeKey(ws.trustFile, old.key.name, '2026-11-21T12:00:00.000Z');
    expect(revocation).toEqual({ changed: true, entry: expect.objectContaining({ name: old.key.name, revokedAt: '2026-11-21T12:00:00.000Z' }) });
    const refused = await verifyNow(ws.trustFile, oldPass);
    expect(refused).toEqual({ ok: false, reason: 'actionpass_invalid', message: `key "${old.key.name}" was revoked at 2026-11-21T12:00:00.000Z` });
    expect((await verifyNow(ws.trustFile, issueActionPass(rotated.key, passClaims()))).ok).toBe(true);
    expect((await loadPassSigner(ws)).key.name).toBe(rotated.key.name);
  });

  it('a new key is active even when the clock stepped back since the last one', async () => {
    const ws = await workspace();
    await loadPassSigner({ ...ws, now: clock('2026-11-21T10:00:00.000Z') });
    const rotated = await rotatePassKey({ ...ws, now: clock('2026-11-20T10:00:00.000Z') });
    expect((await loadPassSigner(ws)).key.name).toBe(rotated.key.name);
  });

  it('revoking the active key makes the next loadPassSigner create a fresh one', async () => {
    const ws = await workspace();
    const { key } = await loadPassSigner(ws);
    await revokeKey(ws.trustFile, key.name, new Date().toISOString());
    const next = await loadPassSigner(ws);
    expect(next.created).toBe(true);
    expect(next.key.name).not.toBe(key.name);
    expect((await readTrustStore(ws.trustFile)).keys).toHaveLength(2);
  });

  it('revocation is idempotent, keeps the first time, and refuses unknown names and bad times', async () => {
    const ws = await workspace();
    const { key } = await loadPassSigner(ws);
    await revokeKey(ws.trustFile, key.name, '2026-11-21T12:00:00.000Z');
    const again = await revokeKey(ws.trustFile, key.name, '2026-11-22T12:00:00.000Z');
    expect(again.changed).toBe(false);
    expect(again.entry.revokedAt).toBe('2026-11-21T12:00:00.000Z');
    expect(await codeOf(revokeKey(ws.trustFile, 'svc.local/org:acme/pass-nope', '2026-11-21T12:00:00.000Z'))).toBe('key_unknown');
    expect(await codeOf(revokeKey(ws.trustFile, key.name, 'yesterday'))).toBe('revocation_time_invalid');
  });
});

describe('reviewer keys', () => {
  it('addReviewer writes the private key outside the workspace and lists the public key with its identity', async () => {
    const ws = await workspace();
    const added = await addReviewer({ reviewer: REVIEWER, trustFile: ws.trustFile, keysDir: ws.reviewerDir, workspaceDir: ws.root, now: clock('2026-11-21T10:00:00.000Z') });
    expect(added.key.name).toMatch(/^reviewer\/user:lead@acme\.example\/[0-9a-f]{4}$/);
    expect(added.file).toBe(path.join(ws.reviewerDir, keyFileName(added.key.name)));
    expect((await stat(added.file)).mode & 0o777).toBe(0o600);
    expect(added.entry).toEqual({ name: added.key.name, alg: 'Ed25519', publicKey: added.key.publicKey.toString('base64'), role: 'reviewer', reviewer: REVIEWER, addedAt: '2026-11-21T10:00:00.000Z' });
    expect((await readTrustStore(ws.trustFile)).keys).toEqual([added.entry]);
    // Nothing secret lands in the workspace.
    expect(await readdir(path.join(ws.root, '.svc'))).toEqual(['trust.json']);
    expect(await readFile(ws.trustFile, 'utf8')).not.toContain('privateKey');

    const loaded = await loadReviewerKey(REVIEWER, ws.trustFile, { keysDir: ws.reviewerDir });
    expect(loaded.publicKey.equals(added.key.publicKey)).toBe(true);
    const artifact = signApprovalArtifact(loaded, approvalClaims());
    expect(verifyApprovalArtifact(artifact, { trust: await readTrustIndex(ws.trustFile), nowMs: approvalClaims().iat * 1000, tenant: TENANT }).ok).toBe(true);
  });

  it('a reviewer key cannot approve in another reviewer\'s name, nor sign passes', async () => {
    const ws = await workspace();
    await addReviewer({ reviewer: REVIEWER, trustFile: ws.trustFile, keysDir: ws.reviewerDir });
    const intern = await addReviewer({ reviewer: 'user:intern@acme.example', trustFile: ws.trustFile, keysDir: ws.reviewerDir });
    const trust = await readTrustIndex(ws.trustFile);
    const asLead = signApprovalArtifact(intern.key, approvalClaims({ approvedBy: REVIEWER }));
    const check = verifyApprovalArtifact(asLead, { trust, nowMs: approvalClaims().iat * 1000, tenant: TENANT });
    expect(check.ok === false && check.reason).toBe('approval_invalid');
    expect(check.ok === false && check.message).toMatch(/belongs to user:intern@acme\.example/);
    const pass = verifyActionPass(issueActionPass(intern.key, passClaims()), { trust, nowMs: passClaims().iat * 1000, audience: AUDIENCE, tenant: TENANT, payloadHash: PAYLOAD_HASH, isPassUsed: () => false });
    expect(pass.ok === false && pass.message).toMatch(/has role reviewer, not actionpass/);
  });

  it('loadReviewerKey takes the newest unrevoked key whose private key is present', async () => {
    const ws = await workspace();
    const older = await addReviewer({ reviewer: REVIEWER, trustFile: ws.trustFile, keysDir: ws.reviewerDir, now: clock('2026-11-20T10:00:00.000Z') });
    const newer = await addReviewer({ reviewer: REVIEWER, trustFile: ws.trustFile, keysDir: ws.reviewerDir, now: clock('2026-11-21T10:00:00.000Z') });
    expect((await loadReviewerKey(REVIEWER, ws.trustFile, { keysDir: ws.reviewerDir })).name).toBe(newer.key.name);
    await revokeKey(ws.trustFile, newer.key.name, '2026-11-21T11:00:00.000Z');
    expect((await loadReviewerKey(REVIEWER, ws.trustFile, { keysDir: ws.reviewerDir })).name).toBe(older.key.name);
    await rm(older.file);
    expect(await codeOf(loadReviewerKey(REVIEWER, ws.trustFile, { keysDir: ws.reviewerDir }))).toBe('reviewer_key_missing');
    expect(await codeOf(loadReviewerKey('user:nobody@acme.example', ws.trustFile, { keysDir: ws.reviewerDir }))).toBe('reviewer_key_missing');
  });

  it('keeps a "+" in the identity while encoding it in the key name', async () => {
    const ws = await workspace();
    const added = await addReviewer({ reviewer: 'user:lead+svc@acme.example', trustFile: ws.trustFile, keysDir: ws.reviewerDir });
    expect(added.key.name).toMatch(/^reviewer\/user:lead%2Bsvc@acme\.example\/[0-9a-f]{4}$/);
    expect(added.entry.reviewer).toBe('user:lead+svc@acme.example');
    expect((await loadReviewerKey('user:lead+svc@acme.example', ws.trustFile, { keysDir: ws.reviewerDir })).name).toBe(added.key.name);
  });

  it('refuses malformed identities and reviewer keys inside the workspace', async () => {
    const ws = await workspace();
    expect(await codeOf(addReviewer({ reviewer: 'lead@acme.example', trustFile: ws.trustFile, keysDir: ws.reviewerDir }))).toBe('reviewer_invalid');
    expect(await codeOf(addReviewer({ reviewer: 'user:lead', trustFile: ws.trustFile, keysDir: ws.reviewerDir }))).toBe('reviewer_invalid');
    expect(await codeOf(addReviewer({ reviewer: REVIEWER, trustFile: ws.trustFile, keysDir: path.join(ws.root, 'keys'), workspaceDir: ws.root }))).toBe('reviewer_keys_in_workspace');
    expect(await codeOf(addReviewer({ reviewer: REVIEWER, trustFile: ws.trustFile, keysDir: path.join(ws.root, '.svc', 'reviewers') }))).toBe('reviewer_keys_in_workspace');
    expect(await codeOf(loadReviewerKey('nobody', ws.trustFile, { keysDir: ws.reviewerDir }))).toBe('reviewer_invalid');
  });
});
