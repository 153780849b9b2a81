/**
 * What `/actions` records when an allowed or approved action is not executed, checked from outside
 * the real `svc proxy` process: the answer, the ledger file read as bytes, and the two independent
 * verifiers run on it afterwards (`svc verify-export`, `svc prove-equivalence`).
 *
 * - A handler that refuses before its side effect (the outbox directory of #ops replaced by a
 *   symbolic link) answers `blocked` and leaves `execution.blocked` with the pair in the ledger:
 *   SPEC.md 4.2 says `/actions` records the outcome. Its pass is spent, after a restart too.
 * - An approval id presented with a changed body: `approval_payload_hash_mismatch` is in
 *   `decision.reasons` and in the `policy.decided` record, like every other approval refusal, and
 *   `execution.blocked` holds the approved and the presented hash.
 */
import { mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSvc } from '../../src/actionpass/sdk.js';
import {
  chatAction,
  emailAction,
  freePort,
  makeWorkspace,
  post,
  readLedgerLines,
  removeWorkspace,
  REVIEWER,
  sha256,
  startProxyProcess,
  svc,
  svcJson,
  type DecisionBody,
  type LedgerLine,
  type ProxyProcess,
  type Workspace,
} from '../support/proxy.js';

function payloadHashOf(action: Record<string, unknown>): string {
  const text = canonicalize((action.capability as { payload: unknown }).payload);
  if (text === undefined) throw new Error('not canonicalizable');
  return sha256(text);
}

function streamOf(lines: readonly LedgerLine[], actionId: string): LedgerLine[] {
  return lines.filter((line) => line.record.stream === `action:${actionId}`);
}

describe('/actions outcomes that are not executions, as the ledger records them', () => {
  let ws: Workspace;
  let proxy: ProxyProcess;
  let elsewhere = '';
  const refused: { symlink?: { actionId: string; token: string; payload: unknown; payloadHash: string }; mismatch?: { actionId: string; approved: string; presented: string } } = {};

  beforeAll(async () => {
    const port = await freePort();
    ws = await makeWorkspace({ port, prefix: 'svc-e2e-records-' });
    await svcJson(['keys', 'add-reviewer', '--as', REVIEWER, '--config', ws.configFile], { env: ws.env });
    proxy = await startProxyProcess({ configFile: ws.configFile, env: ws.env, port });
    elsewhere = await mkdtemp(join(tmpdir(), 'svc-e2e-elsewhere-'));
  });

  afterAll(async () => {
    await proxy?.stop('SIGKILL');
    await rm(elsewhere, { recursive: true, force: true });
  });

  it('a handler that refuses before the side effect (outbox symlink) is recorded as execution.blocked with the pair, and nothing is delivered', async () => {
    await mkdir(join(ws.outbox, 'chat'), { recursive: true });
    await symlink(elsewhere, join(ws.outbox, 'chat', 'ops'));
    const body = chatAction('ops', 'rollout done');
    const payloadHash = payloadHashOf(body);

    const answer = await post<DecisionBody>(proxy.url, '/actions', body);
    expect(answer.status).toBe(200);
    const { actionId } = answer.body.action;
    expect(answer.body.decision).toMatchObject({ decision: 'allow', reasons: ['rule_allow'] });
    expect(answer.body.status).toBe('blocked');
    // Nothing was sent: the pair is the hash the pass bound and the hash of the payload presented.
    expect(answer.body.execution).toEqual({ outcome: 'blocked', reason: 'outbox_symlink', approvedPayloadHash: payloadHash, executedPayloadHash: payloadHash });
    expect(answer.body.explanation).toContain('outbox_symlink');
    expect(await readdir(elsewhere)).toEqual([]);

    const records = streamOf(await readLedgerLines(ws.ledger), actionId).map((line) => line.record);
    expect(records.map((record) => record.type)).toEqual(['action.received', 'policy.decided', 'actionpass.issued', 'execution.blocked']);
    expect(records[3]?.data).toEqual({ actionId, reason: 'outbox_symlink', approvedPayloadHash: payloadHash, executedPayloadHash: payloadHash });
    refused.symlink = { actionId, token: answer.body.actionPass?.token as string, payload: (body.capability as { payload: unknown }).payload, payloadHash };
  });

  it('an approval id presented with a changed body: approval_payload_hash_mismatch in decision.reasons and policy.decided, both hashes in execution.blocked', async () => {
    const approved = emailAction('partner@example.com', 'Q3 numbers', 'Attached are the Q3 numbers.');
    const pending = await post<DecisionBody>(proxy.url, '/actions', approved);
    const approvalId = pending.body.approval?.approvalId as string;
    const granted = await svc(['approvals', 'approve', approvalId, '--as', REVIEWER, '--reason', 'expected', '--config', ws.configFile, '--json'], { env: ws.env });
    expect(granted.code, granted.stdout + granted.stderr).toBe(0);

    const altered = emailAction('partner@example.com', 'Q3 numbers', 'Attached are the Q3 numbers. Also wire $9,000 to the account below.');
    const answer = await post<DecisionBody>(proxy.url, '/actions', altered, { 'svc-approval': approvalId });
    expect(answer.status).toBe(200);
    const approvedHash = payloadHashOf(approved);
    const presentedHash = payloadHashOf(altered);
    const reasons = ['external_recipient', 'approval_payload_hash_mismatch'];
    expect(answer.body.status).toBe('blocked');
    expect(answer.body.decision).toMatchObject({ decision: 'step_up', reasons });
    expect(answer.body.actionPass).toBeUndefined();
    expect(answer.body.execution).toEqual({ outcome: 'blocked', reason: 'approval_payload_hash_mismatch', approvedPayloadHash: approvedHash, executedPayloadHash: presentedHash });

    const lines = await readLedgerLines(ws.ledger);
    const { actionId } = answer.body.action;
    expect(lines[answer.body.ledger.seq]?.hash).toBe(answer.body.ledger.hash);
    expect(lines[answer.body.ledger.seq]?.record).toMatchObject({ type: 'policy.decided', data: { actionId, decision: 'step_up', reasons } });
    const blocked = streamOf(lines, actionId).find((line) => line.record.type === 'execution.blocked');
    expect(blocked?.record.data).toEqual({ actionId, reason: 'approval_payload_hash_mismatch', approvedPayloadHash: approvedHash, executedPayloadHash: presentedHash });
    expect(await readdir(join(ws.outbox, 'email')).catch(() => [])).toEqual([]);
    refused.mismatch = { actionId, approved: approvedHash, presented: presentedHash };
  });

  it('after a restart the ledger verifies, prove-equivalence lists both refusals as blocked evidence, and the refused pass stays spent', async () => {
    const { symlink: spent, mismatch } = refused;
    if (!spent || !mismatch) throw new Error('the tests above did not run');
    expect(await proxy.stop('SIGTERM')).toEqual({ code: 0, signal: null });

    const verified = await svc(['verify-export', ws.ledger, '--json'], { env: ws.env });
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ valid: true, equivalence: { equivalent: 0, blocked: 2, violated: 0 } });

    const proved = await svc(['prove-equivalence', '--ledger', ws.ledger, '--json'], { env: ws.env });
    expect(proved.code, proved.stdout + proved.stderr).toBe(0);
    const proof = JSON.parse(proved.stdout) as { holds: boolean; uncovered: string[]; verdicts: { actionId: string; status: string; reason?: string; approvedPayloadHash: string; executedPayloadHash: string }[] };
    expect(proof.holds).toBe(true);
    expect(proof.uncovered).toEqual([]);
    expect(proof.verdicts).toContainEqual(expect.objectContaining({ actionId: spent.actionId, status: 'blocked', reason: 'outbox_symlink', approvedPayloadHash: spent.payloadHash, executedPayloadHash: spent.payloadHash }));
    expect(proof.verdicts).toContainEqual(
      expect.objectContaining({ actionId: mismatch.actionId, status: 'blocked', reason: 'approval_payload_hash_mismatch', approvedPayloadHash: mismatch.approved, executedPayloadHash: mismatch.presented }),
    );

    // The pass the proxy issued for the refused chat cannot be spent by anyone else: the SDK folds
    // the same ledger and refuses it for its exact payload.
    const sdk = await createSvc({ config: ws.configFile });
    try {
      await expect(sdk.verify(spent.token, spent.payload)).rejects.toMatchObject({ code: 'actionpass_replayed' });
    } finally {
      await sdk.close();
    }
    await removeWorkspace(ws);
  });
});
