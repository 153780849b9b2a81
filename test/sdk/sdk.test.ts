import { copyFileSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSvc, type SvcClient } from '../../src/actionpass/sdk.js';
import { demoHandlers } from '../../src/adapters/demo-handlers.js';
import { SvcError } from '../../src/errors.js';
import { hashCanonical } from '../../src/events/canonical.js';
import { verifyExport } from '../../src/evidence/verify-export.js';
import { freePort, makeWorkspace, removeWorkspace, REVIEWER, svc as svcCli, svcJson } from '../support/proxy.js';

/** The five verbs against a real ledger on disk, with the example config. */
let svc: SvcClient | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sdk-'));
  copyFileSync(new URL('../../svc.yml.example', import.meta.url), join(dir, 'svc.yml'));
  return dir;
}

const action = (channel: string, text = 'deploy finished') => ({
  schemaVersion: 'svc.action.v0',
  actor: { agentId: 'agent:service' },
  intent: { taskId: 'sdk-1' },
  capability: { tool: 'chat.message.send', resource: `channel:${channel}`, payload: { channel, text } },
});

function refusalOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof SvcError ? error.code : 'not_svc_error';
  }
}

describe('SDK', () => {
  it('authorize, verify, record: the caller owns the side effect and the ledger holds the equivalence pair', async () => {
    const dir = workspace();
    svc = await createSvc({ config: join(dir, 'svc.yml') });
    expect(svc.normalize(action('eng'))).toMatchObject({ ok: true, payloadHash: hashCanonical({ channel: 'eng', text: 'deploy finished' }) });

    const decision = await svc.authorize(action('eng'));
    expect(decision.decision.decision).toBe('allow');
    const token = decision.actionPass?.token as string;
    // A payload that differs from the authorized one is refused before anything is sent.
    expect(refusalOf(() => svc?.verify(token, { channel: 'eng', text: 'something else' }))).toBe('actionpass_payload_hash_mismatch');
    const claims = svc.verify(token, { channel: 'eng', text: 'deploy finished' });
    expect(refusalOf(() => svc?.verify(token, { channel: 'eng', text: 'deploy finished' }))).toBe('actionpass_replayed');
    const receipt = await svc.record(claims, { outcome: 'succeeded', payload: { channel: 'eng', text: 'deploy finished' }, result: { ok: true } });
    expect(receipt.type).toBe('execution.completed');

    const denied = await svc.authorize(action('random'));
    expect(denied.decision).toMatchObject({ decision: 'deny', reasons: ['channel_not_allowlisted'] });
    expect(denied.actionPass).toBeUndefined();
    await expect(svc.authorize({ ...action('eng'), extra: 1 })).rejects.toMatchObject({ code: 'schema_invalid' });
    await svc.close();
    svc = undefined;

    const report = await verifyExport(join(dir, '.svc/ledger.jsonl'));
    expect(report.valid).toBe(true);
    expect(report.equivalence).toEqual({ equivalent: 1, blocked: 0, violated: 0 });
  });

  it('execute runs a registered handler after verifying the pass again, and records the outcome', async () => {
    const dir = workspace();
    const outbox = join(dir, 'outbox');
    svc = await createSvc({ config: join(dir, 'svc.yml'), handlers: demoHandlers({ outboxDir: outbox, sandboxDir: join(dir, 'sandbox') }) });
    const answer = await svc.execute(action('ops', 'rolled back'));
    expect(answer.status).toBe('executed');
    const delivered = readdirSync(join(outbox, 'chat', 'ops'));
    expect(delivered).toHaveLength(1);
    const bytes = readFileSync(join(outbox, 'chat', 'ops', delivered[0] as string));
    expect(hashCanonical(JSON.parse(bytes.toString('utf8')))).toBe(answer.execution?.executedPayloadHash);
    expect(answer.execution?.executedPayloadHash).toBe(answer.actionPass?.claims && (answer.actionPass.claims as { payloadHash: string }).payloadHash);
  });

  it('step_up: the reviewer signs with --print-artifact while the service holds the ledger, and the service presents it once', async () => {
    const ws = await makeWorkspace({ port: await freePort() });
    try {
      await svcJson(['keys', 'add-reviewer', '--as', REVIEWER, '--config', ws.configFile], { env: ws.env });
      svc = await createSvc({ config: ws.configFile });
      const payload = { to: 'partner@example.com', subject: 'q3', body: 'numbers attached' };
      const external = { schemaVersion: 'svc.action.v0', actor: { agentId: 'agent:service' }, intent: { taskId: 'sdk-mail' }, capability: { tool: 'email.message.send', resource: `mailbox:${payload.to}`, payload } };
      const pending = await svc.authorize(external);
      expect(pending.status).toBe('pending_approval');
      const approvalId = pending.approval?.approvalId as string;

      // Recording the grant needs the ledger this process holds: the CLI says what to do instead.
      const locked = await svcCli(['approvals', 'approve', approvalId, '--as', REVIEWER, '--config', ws.configFile, '--json'], { env: ws.env });
      expect(locked.code).not.toBe(0);
      expect(locked.stdout + locked.stderr).toContain('--print-artifact');

      const signed = await svcJson<{ approvalId: string; payloadHash: string; artifact: string }>(['approvals', 'approve', approvalId, '--as', REVIEWER, '--print-artifact', '--config', ws.configFile, '--json'], { env: ws.env });
      expect(signed).toMatchObject({ approvalId, payloadHash: hashCanonical(payload) });
      const changed = await svc.authorize({ ...external, capability: { ...external.capability, payload: { ...payload, body: 'other numbers' } } }, { approval: signed.artifact });
      expect(changed.status).toBe('blocked');
      expect(changed.actionPass).toBeUndefined();

      const approved = await svc.authorize(external, { approval: signed.artifact });
      expect(approved.decision.decision).toBe('step_up');
      expect(approved.status).toBe('decided');
      const claims = svc.verify(approved.actionPass?.token as string, payload);
      expect(claims.approvalId).toBe(approvalId);
      await svc.record(claims, { outcome: 'succeeded', payload, result: { sent: true } });
      const again = await svc.authorize(external, { approval: signed.artifact });
      expect(again.actionPass).toBeUndefined();
      await svc.close();
      svc = undefined;

      const report = await verifyExport(ws.ledger);
      expect(report.valid).toBe(true);
      expect(report.equivalence.equivalent).toBe(1);
    } finally {
      await removeWorkspace(ws);
    }
  });
});
