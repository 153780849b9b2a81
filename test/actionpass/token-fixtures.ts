import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ActionPassClaims } from '../../src/actionpass/actionpass-token.js';
import type { ApprovalClaims } from '../../src/actionpass/approval-artifact.js';
import { generateSigningKey, publicKeyInfo, type SigningKey } from '../../src/actionpass/keys.js';
import { TrustIndex, type TrustedKeyEntry, type TrustStore } from '../../src/actionpass/trust-store.js';
import { hashCanonical } from '../../src/events/canonical.js';

/** Shared keys, claims and trust stores for the token suites. */

export const NOW_S = 1_795_000_000; // 2026-11-18
export const NOW_MS = NOW_S * 1000;
export const TENANT = 'org:acme';
export const AUDIENCE = 'svc.adapters';
export const REVIEWER = 'user:lead@acme.example';

export const PAYLOAD = { channel: 'eng', text: 'deploy finished' };
export const PAYLOAD_HASH = hashCanonical(PAYLOAD);
export const OTHER_PAYLOAD_HASH = hashCanonical({ ...PAYLOAD, text: 'deploy finished; also rm -rf /' });

export const passKey = generateSigningKey('svc.local/org:acme/pass-20261118-ab12');
export const reviewerKey = generateSigningKey('reviewer/user:lead@acme.example/cd34');
export const otherReviewerKey = generateSigningKey('reviewer/user:intern@acme.example/ef56');
export const revokedPassKey = generateSigningKey('svc.local/org:acme/pass-20261001-0001');
export const unknownKey = generateSigningKey('svc.local/org:acme/pass-20261118-ffff');

export function entry(key: SigningKey, role: TrustedKeyEntry['role'], extra: Partial<TrustedKeyEntry> = {}): TrustedKeyEntry {
  return { ...publicKeyInfo(key), role, addedAt: '2026-11-18T10:00:00.000Z', ...extra };
}

export const store: TrustStore = {
  version: 0,
  keys: [
    entry(passKey, 'actionpass'),
    entry(revokedPassKey, 'actionpass', { addedAt: '2026-10-01T10:00:00.000Z', revokedAt: '2026-11-01T10:00:00.000Z' }),
    entry(reviewerKey, 'reviewer', { reviewer: REVIEWER }),
    entry(otherReviewerKey, 'reviewer', { reviewer: 'user:intern@acme.example' }),
  ],
};

export const trust = TrustIndex.of(store);

/** The trust.json entry of `key`, as an outside verifier would read it. */
export function trustEntry(key: SigningKey): TrustedKeyEntry {
  const found = store.keys.find((candidate) => candidate.name === key.name);
  if (found === undefined) throw new Error(`${key.name} is not in the test trust store`);
  return found;
}

export function passClaims(overrides: Partial<ActionPassClaims> = {}): ActionPassClaims {
  return {
    iss: 'svc.local',
    sub: 'agent:deployer',
    aud: AUDIENCE,
    iat: NOW_S,
    nbf: NOW_S,
    exp: NOW_S + 300,
    jti: 'pass_0001',
    tenant: TENANT,
    tool: 'chat.message.send',
    resource: 'channel:eng',
    actionId: 'act_0001',
    actionHash: hashCanonical({ action: 1 }),
    payloadHash: PAYLOAD_HASH,
    policyHash: hashCanonical({ policy: 1 }),
    decisionSeq: 12,
    ...overrides,
  };
}

export function approvalClaims(overrides: Partial<ApprovalClaims> = {}): ApprovalClaims {
  return {
    approvalId: 'apr_0001',
    actionId: 'act_0002',
    actionHash: hashCanonical({ action: 2 }),
    payloadHash: PAYLOAD_HASH,
    approvedBy: REVIEWER,
    mode: 'human',
    reason: 'partner expects the numbers',
    iat: NOW_S,
    exp: NOW_S + 3600,
    tenant: TENANT,
    ...overrides,
  };
}

/** The public JWK (RFC 8037, OKP Ed25519) of a trust.json entry, built from its base64 alone. */
export function jwkOf(trustEntry: Pick<TrustedKeyEntry, 'publicKey'>): { kty: 'OKP'; crv: 'Ed25519'; x: string } {
  return { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(trustEntry.publicKey, 'base64').toString('base64url') };
}

export async function tempDir(prefix = 'svc-keys-test-'): Promise<string> {
  return mkdtemp(path.join(tmpdir(), prefix));
}

/** The token with one part replaced (an object is JSON-encoded), keeping the rest: for forgery tests. */
export function withPart(token: string, index: 0 | 1 | 2, value: object | string): string {
  const parts = token.split('.');
  parts[index] = typeof value === 'string' ? value : Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
  return parts.join('.');
}

export function decodePart(token: string, index: 0 | 1): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[index] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}
