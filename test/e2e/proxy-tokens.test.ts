/**
 * The tokens the real proxy hands out, checked from the outside:
 *
 * - the ActionPass of /authorize and the approval artifact recorded in the ledger verify with a
 *   standard JOSE library (`jose`), given only a public key read from .svc/trust.json;
 * - svc's own `verifyActionPass`, fed the trust store file, refuses what it must refuse (replay,
 *   expiry, a foreign key, a revoked key, another payload, tenant or audience) for passes issued
 *   by the running proxy, which the HTTP surface alone cannot express (every POST is a new pass);
 * - the `svc-approval` header carrying a signed artifact instead of an id: accepted from a trusted
 *   reviewer for the exact payload, refused from a foreign key or for another payload.
 */
import { readFile } from 'node:fs/promises';
import { compactVerify, decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyActionPass, type PassExpectations } from '../../src/actionpass/actionpass-token.js';
import { signApprovalArtifact, verifyApprovalArtifact, type ApprovalClaims } from '../../src/actionpass/approval-artifact.js';
import { generateSigningKey, readKeyFile } from '../../src/actionpass/keys.js';
import { readTrustStore, TrustIndex, type TrustStore } from '../../src/actionpass/trust-store.js';
import {
  chatAction,
  emailAction,
  freePort,
  get,
  makeWorkspace,
  poll,
  post,
  readLedgerLines,
  recordsOfType,
  REVIEWER,
  sha256,
  startProxyProcess,
  svc,
  svcJson,
  type DecisionBody,
  type ProxyProcess,
  type Workspace,
} from '../support/proxy.js';

function jcs(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('not canonicalizable');
  return text;
}

async function trustJson(ws: Workspace): Promise<TrustStore> {
  return JSON.parse(await readFile(ws.trustFile, 'utf8')) as TrustStore;
}

/** A jose key from the base64 public key of a trust.json entry: the only thing a verifier needs. */
async function joseKey(publicKeyBase64: string) {
  return importJWK({ kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKeyBase64, 'base64').toString('base64url') }, 'EdDSA');
}

function b64urlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('tokens issued by the real proxy', () => {
  let ws: Workspace;
  let proxy: ProxyProcess;
  let reviewerKeyFile = '';
  let pass: { token: string; claims: Record<string, any> };
  let allowBody: Record<string, unknown>;

  beforeAll(async () => {
    const port = await freePort();
    ws = await makeWorkspace({ port });
    const reviewer = await svcJson<{ file: string }>(['keys', 'add-reviewer', '--as', REVIEWER, '--config', ws.configFile], { env: ws.env });
    reviewerKeyFile = reviewer.file;
    proxy = await startProxyProcess({ configFile: ws.configFile, env: ws.env, port });
    allowBody = chatAction('eng', 'deploy finished');
    const answer = await post<DecisionBody>(proxy.url, '/authorize', allowBody);
    expect(answer.body.decision.decision).toBe('allow');
    pass = answer.body.actionPass as { token: string; claims: Record<string, any> };
  });

  afterAll(async () => {
    await proxy?.stop('SIGKILL');
  });

  const expectations = async (overrides: Partial<PassExpectations> = {}): Promise<PassExpectations> => ({
    trust: TrustIndex.of(await readTrustStore(ws.trustFile)),
    nowMs: Date.now(),
    audience: 'svc.adapters',
    tenant: 'org:acme',
    payloadHash: pass.claims.payloadHash,
    isPassUsed: () => false,
    ...overrides,
  });

  describe('with jose and only the public key from trust.json', () => {
    it('the ActionPass of /authorize verifies, and its claims are the ones the answer shows', async () => {
      const header = decodeProtectedHeader(pass.token);
      expect(header).toEqual({ alg: 'EdDSA', typ: 'svc-actionpass+jwt', kid: expect.any(String) });
      const entry = (await trustJson(ws)).keys.find((key) => key.name === header.kid);
      expect(entry?.role).toBe('actionpass');
      const { payload, protectedHeader } = await jwtVerify(pass.token, await joseKey(entry?.publicKey as string), {
        algorithms: ['EdDSA'],
        typ: 'svc-actionpass+jwt',
        issuer: 'svc.local',
        audience: 'svc.adapters',
        subject: 'agent:deployer',
        requiredClaims: ['iat', 'nbf', 'exp', 'jti'],
      });
      expect(protectedHeader.kid).toBe(header.kid);
      expect(payload).toEqual(pass.claims);
      expect(payload.payloadHash).toBe(sha256(jcs((allowBody.capability as any).payload)));

      const { payload: bytes } = await compactVerify(pass.token, await joseKey(entry?.publicKey as string));
      expect(JSON.parse(Buffer.from(bytes).toString('utf8'))).toEqual(pass.claims);
    });

    it('jose refuses the pass with altered claims, and under any other key', async () => {
      const [header, , signature] = pass.token.split('.');
      const store = await trustJson(ws);
      const entry = store.keys.find((key) => key.name === decodeProtectedHeader(pass.token).kid);
      const key = await joseKey(entry?.publicKey as string);
      const altered = `${header}.${b64urlJson({ ...pass.claims, payloadHash: sha256('{"channel":"eng","text":"rm -rf /"}') })}.${signature}`;
      await expect(jwtVerify(altered, key)).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
      const reviewerEntry = store.keys.find((candidate) => candidate.role === 'reviewer');
      await expect(jwtVerify(pass.token, await joseKey(reviewerEntry?.publicKey as string))).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
      await expect(jwtVerify(pass.token, key, { audience: 'someone.else' })).rejects.toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED' });
      // The time window, judged by jose's own clock: valid inside it, expired one second after exp, not yet valid before nbf.
      const at = (seconds: number) => new Date(seconds * 1000);
      await expect(jwtVerify(pass.token, key, { currentDate: at(pass.claims.exp - 1) })).resolves.toBeDefined();
      await expect(jwtVerify(pass.token, key, { currentDate: at(pass.claims.exp + 1) })).rejects.toMatchObject({ code: 'ERR_JWT_EXPIRED' });
      await expect(jwtVerify(pass.token, key, { currentDate: at(pass.claims.nbf - 60) })).rejects.toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim: 'nbf' });
    });

    it('the approval artifact recorded in approval.granted verifies under the reviewer key and binds the requested payload', async () => {
      const body = emailAction('partner@example.com', 'Q3', 'Attached are the Q3 numbers.');
      const pending = await post<DecisionBody>(proxy.url, '/actions', body);
      const approvalId = pending.body.approval?.approvalId as string;
      const approved = await svc(['approvals', 'approve', approvalId, '--as', REVIEWER, '--reason', 'expected', '--config', ws.configFile, '--json'], { env: ws.env });
      expect(approved.code, approved.stdout + approved.stderr).toBe(0);

      const granted = recordsOfType(await readLedgerLines(ws.ledger), 'approval.granted').find((line) => line.record.data.approvalId === approvalId);
      const artifact = granted?.record.data.artifact as string;
      const header = decodeProtectedHeader(artifact);
      expect(header).toMatchObject({ alg: 'EdDSA', typ: 'svc-approval+jwt' });
      const entry = (await trustJson(ws)).keys.find((key) => key.name === header.kid);
      expect(entry).toMatchObject({ role: 'reviewer', reviewer: REVIEWER });
      const { payload } = await jwtVerify(artifact, await joseKey(entry?.publicKey as string), { algorithms: ['EdDSA'], typ: 'svc-approval+jwt' });
      expect(payload).toMatchObject({
        approvalId,
        actionId: pending.body.action.actionId,
        actionHash: pending.body.action.actionHash,
        payloadHash: sha256(jcs((body.capability as any).payload)),
        approvedBy: REVIEWER,
        mode: 'human',
        reason: 'expected',
        tenant: 'org:acme',
      });
      expect((payload.exp as number) - (payload.iat as number)).toBe(3600);
      // The proxy's own key cannot have signed it: only a reviewer key may approve.
      const passEntry = (await trustJson(ws)).keys.find((key) => key.role === 'actionpass');
      await expect(jwtVerify(artifact, await joseKey(passEntry?.publicKey as string))).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });

      const check = verifyApprovalArtifact(artifact, { trust: TrustIndex.of(await readTrustStore(ws.trustFile)), nowMs: Date.now(), tenant: 'org:acme' });
      expect(check.ok).toBe(true);
      const expired = verifyApprovalArtifact(artifact, { trust: TrustIndex.of(await readTrustStore(ws.trustFile)), nowMs: ((payload.exp as number) + 60) * 1000, tenant: 'org:acme' });
      expect(expired).toMatchObject({ ok: false, reason: 'approval_expired' });
      const otherTenant = verifyApprovalArtifact(artifact, { trust: TrustIndex.of(await readTrustStore(ws.trustFile)), nowMs: Date.now(), tenant: 'org:other' });
      expect(otherTenant).toMatchObject({ ok: false, reason: 'approval_tenant_mismatch' });
    });
  });

  describe('verifyActionPass with the trust store file, against passes of the running proxy', () => {
    it('accepts the pass for its exact payload', async () => {
      const check = verifyActionPass(pass.token, await expectations());
      expect(check).toMatchObject({ ok: true, kid: decodeProtectedHeader(pass.token).kid });
      if (check.ok) expect(check.claims).toEqual(pass.claims);
    });

    it('refuses a pass the proxy already executed (replay), judged from the ledger', async () => {
      const executed = await post<DecisionBody>(proxy.url, '/actions', chatAction('ops', 'rollout done'));
      expect(executed.body.status).toBe('executed');
      const used = new Set(recordsOfType(await readLedgerLines(ws.ledger), 'execution.completed').map((line) => line.record.data.passId as string));
      expect(used.has(executed.body.actionPass?.claims.jti)).toBe(true);
      const isPassUsed = (jti: string) => used.has(jti);
      const replay = verifyActionPass(executed.body.actionPass?.token as string, await expectations({ payloadHash: executed.body.action.payloadHash, isPassUsed }));
      expect(replay).toMatchObject({ ok: false, reason: 'actionpass_replayed' });
      // The /authorize pass was never executed: the same ledger-backed check accepts it.
      expect(verifyActionPass(pass.token, await expectations({ isPassUsed })).ok).toBe(true);
    });

    it('refuses an expired pass and one not yet valid', async () => {
      const expired = verifyActionPass(pass.token, await expectations({ nowMs: (pass.claims.exp + 60) * 1000 }));
      expect(expired).toMatchObject({ ok: false, reason: 'actionpass_expired' });
      const early = verifyActionPass(pass.token, await expectations({ nowMs: (pass.claims.nbf - 60) * 1000 }));
      expect(early).toMatchObject({ ok: false, reason: 'actionpass_invalid' });
    });

    it('refuses a different payload, tenant or audience', async () => {
      const otherPayload = sha256(jcs({ channel: 'eng', text: 'deploy finished!' }));
      expect(verifyActionPass(pass.token, await expectations({ payloadHash: otherPayload }))).toMatchObject({ ok: false, reason: 'actionpass_payload_hash_mismatch' });
      expect(verifyActionPass(pass.token, await expectations({ tenant: 'org:evil' }))).toMatchObject({ ok: false, reason: 'actionpass_invalid' });
      expect(verifyActionPass(pass.token, await expectations({ audience: 'svc.elsewhere' }))).toMatchObject({ ok: false, reason: 'actionpass_invalid' });
    });

    it('refuses the pass under a foreign key of the same name, with an empty trust store, and with altered claims', async () => {
      const store = await readTrustStore(ws.trustFile);
      const kid = decodeProtectedHeader(pass.token).kid as string;
      const foreign = generateSigningKey(kid);
      const swapped: TrustStore = { ...store, keys: store.keys.map((entry) => (entry.name === kid ? { ...entry, publicKey: foreign.publicKey.toString('base64') } : entry)) };
      expect(verifyActionPass(pass.token, await expectations({ trust: TrustIndex.of(swapped) }))).toMatchObject({ ok: false, reason: 'actionpass_invalid' });
      expect(verifyActionPass(pass.token, await expectations({ trust: TrustIndex.of({ version: 0, keys: [] }) }))).toMatchObject({ ok: false, reason: 'actionpass_invalid' });
      const [header, , signature] = pass.token.split('.');
      const forged = `${header}.${b64urlJson({ ...pass.claims, exp: pass.claims.exp + 86_400 })}.${signature}`;
      expect(verifyActionPass(forged, await expectations())).toMatchObject({ ok: false, reason: 'actionpass_invalid' });
      // A pass signed by a key svc does not trust, claims copied verbatim.
      const { signCompactJws } = await import('../../src/actionpass/jws.js');
      const selfMade = signCompactJws(foreign, { typ: 'svc-actionpass+jwt', kid }, pass.claims);
      expect(verifyActionPass(selfMade, await expectations())).toMatchObject({ ok: false, reason: 'actionpass_invalid' });
    });
  });

  describe('the svc-approval header carrying a signed artifact', () => {
    type Ids = Pick<ApprovalClaims, 'approvalId' | 'actionId' | 'actionHash' | 'payloadHash'>;
    /** Signs an approval artifact the way a reviewer's tool would; valid for ten minutes from `iat`. */
    const sign = async (ids: Ids, options: { key?: Awaited<ReturnType<typeof readKeyFile>>; iat?: number; exp?: number } = {}) => {
      const key = options.key ?? (await readKeyFile(reviewerKeyFile));
      const iat = options.iat ?? Math.floor(Date.now() / 1000);
      return signApprovalArtifact(key, { ...ids, approvedBy: REVIEWER, mode: 'human', reason: 'signed in the test', iat, exp: options.exp ?? iat + 600, tenant: 'org:acme' });
    };

    it('executes with an artifact from a trusted reviewer key for the exact payload, recording the grant', async () => {
      const body = emailAction('vendor@example.com', 'PO 4411', 'Please confirm the order.');
      const pending = (await post<DecisionBody>(proxy.url, '/actions', body)).body;
      const approval = (await get(proxy.url, `/approvals/${pending.approval?.approvalId}`)).body.approval;
      const artifact = await sign({ approvalId: approval.approvalId, actionId: approval.actionId, actionHash: approval.actionHash, payloadHash: approval.payloadHash });
      const executed = await post<DecisionBody>(proxy.url, '/actions', body, { 'svc-approval': artifact });
      expect(executed.body.status).toBe('executed');
      expect(executed.body.execution).toMatchObject({ approvedPayloadHash: pending.action.payloadHash, executedPayloadHash: pending.action.payloadHash });
      const granted = recordsOfType(await readLedgerLines(ws.ledger), 'approval.granted').find((line) => line.record.data.approvalId === approval.approvalId);
      expect(granted?.record.data.artifact).toBe(artifact);
    });

    it('refuses an artifact signed by a key the trust store does not list', async () => {
      const body = emailAction('vendor@example.com', 'PO 4412', 'Please confirm the second order.');
      const pending = (await post<DecisionBody>(proxy.url, '/actions', body)).body;
      const approval = (await get(proxy.url, `/approvals/${pending.approval?.approvalId}`)).body.approval;
      const stranger = generateSigningKey((await readKeyFile(reviewerKeyFile)).name);
      const artifact = await sign({ approvalId: approval.approvalId, actionId: approval.actionId, actionHash: approval.actionHash, payloadHash: approval.payloadHash }, { key: stranger });
      const refused = await post<DecisionBody>(proxy.url, '/actions', body, { 'svc-approval': artifact });
      expect(refused.body.status).toBe('blocked');
      expect(refused.body.decision.reasons).toContain('approval_invalid');
      expect(refused.body.actionPass).toBeUndefined();
      const viaEndpoint = await post(proxy.url, `/approvals/${approval.approvalId}/artifact`, { artifact });
      expect(viaEndpoint.status).toBe(400);
      expect(viaEndpoint.body.error.code).toBe('approval_invalid');
      expect((await get(proxy.url, `/approvals/${approval.approvalId}`)).body.approval.status).toBe('pending');
    });

    it('refuses an artifact for another payload, and an expired one; accepts the right one once at /approvals/<id>/artifact', async () => {
      const body = emailAction('vendor@example.com', 'PO 4413', 'Please confirm the third order.');
      const pending = (await post<DecisionBody>(proxy.url, '/actions', body)).body;
      const approval = (await get(proxy.url, `/approvals/${pending.approval?.approvalId}`)).body.approval;
      const ids = { approvalId: approval.approvalId, actionId: approval.actionId, actionHash: approval.actionHash };
      const wrongPayloadHash = sha256(jcs({ to: 'vendor@example.com', subject: 'PO 4413', body: 'Send it to my account instead.' }));
      const wrongPayload = await sign({ ...ids, payloadHash: wrongPayloadHash });
      const viaHeader = await post<DecisionBody>(proxy.url, '/actions', body, { 'svc-approval': wrongPayload });
      expect(viaHeader.body.status).toBe('blocked');
      expect(viaHeader.body.actionPass).toBeUndefined();
      const reasons = ['external_recipient', 'approval_payload_hash_mismatch'];
      expect(viaHeader.body.decision.reasons).toEqual(reasons);
      // DESIGN.md 6: both hashes, in the answer's execution and in the ledger: what the artifact
      // approved beside the payload presented with it.
      const pair = { reason: 'approval_payload_hash_mismatch', approvedPayloadHash: wrongPayloadHash, executedPayloadHash: approval.payloadHash };
      expect(viaHeader.body.execution).toEqual({ outcome: 'blocked', ...pair });
      const lines = await readLedgerLines(ws.ledger);
      const blockedId = viaHeader.body.action.actionId;
      expect(lines[viaHeader.body.ledger.seq]?.record).toMatchObject({ type: 'policy.decided', data: { actionId: blockedId, reasons } });
      expect(recordsOfType(lines, 'execution.blocked').find((line) => line.record.data.actionId === blockedId)?.record.data).toEqual({ actionId: blockedId, ...pair });
      const viaEndpoint = await post(proxy.url, `/approvals/${approval.approvalId}/artifact`, { artifact: wrongPayload });
      expect(viaEndpoint.status).toBe(409);
      expect(viaEndpoint.body.error.code).toBe('approval_payload_hash_mismatch');

      const now = Math.floor(Date.now() / 1000);
      const expired = await sign({ ...ids, payloadHash: approval.payloadHash }, { iat: now - 7200, exp: now - 3600 });
      const late = await post(proxy.url, `/approvals/${approval.approvalId}/artifact`, { artifact: expired });
      expect(late.status).toBe(409);
      expect(late.body.error.code).toBe('approval_expired');

      const right = await sign({ ...ids, payloadHash: approval.payloadHash });
      const accepted = await post(proxy.url, `/approvals/${approval.approvalId}/artifact`, { artifact: right });
      expect(accepted.status).toBe(200);
      expect(accepted.body.approval).toMatchObject({ approvalId: approval.approvalId, status: 'granted', approvedBy: REVIEWER });
      const twice = await post(proxy.url, `/approvals/${approval.approvalId}/artifact`, { artifact: right });
      expect(twice.status).toBe(409);
      expect(twice.body.error.code).toBe('approval_already_granted');
      const executed = await post<DecisionBody>(proxy.url, '/actions', body, { 'svc-approval': approval.approvalId });
      expect(executed.body.status).toBe('executed');
    });
  });

  describe('revocation', () => {
    it('a pass signed by a key revoked with svc keys revoke no longer verifies', async () => {
      const kid = decodeProtectedHeader(pass.token).kid as string;
      const revoked = await svc(['keys', 'revoke', kid, '--config', ws.configFile, '--json'], { env: ws.env });
      expect(revoked.code, revoked.stdout + revoked.stderr).toBe(0);
      const check = verifyActionPass(pass.token, await expectations());
      expect(check).toMatchObject({ ok: false, reason: 'actionpass_invalid' });
      if (!check.ok) expect(check.message).toContain('revoked');
    });

    it('the running proxy moves signing to a fresh key once it sees the revocation, and executes only under that key', async () => {
      // DESIGN.md 6: the check before a side effect includes "kid in the trust store". The proxy
      // watches trust.json and reports when it has moved signing off a revoked key; until that
      // moment it may still sign and verify with the old trust, so the check waits for the report
      // and then requires one outcome.
      const revoked = decodeProtectedHeader(pass.token).kid as string;
      await poll('the proxy to report that it moved off the revoked key', async () => (proxy.stderr().includes(`ActionPass key ${revoked} is no longer trusted`) ? true : undefined), { timeoutMs: 10_000, everyMs: 100 });
      const body = chatAction('deploys', 'after the revocation');
      const answer = await post<DecisionBody>(proxy.url, '/actions', body);
      expect(answer.status).toBe(200);
      expect(answer.body.status).toBe('executed');
      const token = answer.body.actionPass?.token as string;
      expect(decodeProtectedHeader(token).kid).not.toBe(revoked);
      expect(verifyActionPass(token, await expectations({ payloadHash: answer.body.action.payloadHash }))).toMatchObject({ ok: true });
      const completed = recordsOfType(await readLedgerLines(ws.ledger), 'execution.completed').find((line) => line.record.data.actionId === answer.body.action.actionId);
      expect(completed?.record.data).toMatchObject({ passId: answer.body.actionPass?.claims.jti, outcome: 'succeeded', approvedPayloadHash: answer.body.action.payloadHash, executedPayloadHash: answer.body.action.payloadHash });
    });
  });
});
