import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { issueActionPass, type ActionPassClaims } from '../../src/actionpass/actionpass-token.js';
import { signCompactJws } from '../../src/actionpass/jws.js';
import { generateSigningKey, keyFileName, readKeyFile } from '../../src/actionpass/keys.js';
import { createSvc, type SvcClient } from '../../src/actionpass/sdk.js';
import { demoHandlers } from '../../src/adapters/demo-handlers.js';
import { SvcError } from '../../src/errors.js';
import { hashCanonical } from '../../src/events/canonical.js';
import { verifyExport } from '../../src/evidence/verify-export.js';
import { freePort, makeWorkspace, readLedgerLines, removeWorkspace, REVIEWER, svc as svcCli, svcJson } from '../support/proxy.js';

/** The five verbs against a real ledger on disk, with the example config. */
const SDK_LEDGER_FULL = fileURLToPath(new URL('../../dist/test/children/sdk-ledger-full.js', import.meta.url));
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

async function refusalOf(run: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await run();
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
    const claims = await svc.verify(token, { channel: 'eng', text: 'deploy finished' });
    expect(await refusalOf(() => svc?.verify(token, { channel: 'eng', text: 'deploy finished' }) as Promise<unknown>)).toBe('actionpass_replayed');
    const receipt = await svc.record(claims, { outcome: 'succeeded', payload: { channel: 'eng', text: 'deploy finished' }, result: { ok: true } });
    expect(receipt.type).toBe('execution.completed');
    // One outcome per pass: the same claims cannot be recorded twice.
    expect(await refusalOf(() => svc?.record(claims, { outcome: 'succeeded', payload: { channel: 'eng', text: 'deploy finished' } }) as Promise<unknown>)).toBe('actionpass_not_verified');

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
      const claims = await svc.verify(approved.actionPass?.token as string, payload);
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

/** The ledger's records, read from the file the SDK is writing. */
async function ledgerRecords(dir: string) {
  return (await readLedgerLines(join(dir, '.svc/ledger.jsonl'))).map((line) => line.record);
}

/** The SDK holds the ledger: close it, then check the file as `svc verify-export` does. */
async function closeAndVerify(dir: string) {
  await svc?.close();
  svc = undefined;
  const report = await verifyExport(join(dir, '.svc/ledger.jsonl'));
  expect(report.valid).toBe(true);
  return report;
}

describe('SDK verify: a refused pass is evidence', () => {
  const sent = { channel: 'eng', text: 'deploy finished' };

  it('a changed payload is refused once execution.blocked holds both hashes, and the pass is spent', async () => {
    // Given a pass for "deploy finished"
    const dir = workspace();
    svc = await createSvc({ config: join(dir, 'svc.yml') });
    const decision = await svc.authorize(action('eng'));
    const token = decision.actionPass?.token as string;
    const claims = decision.actionPass?.claims as ActionPassClaims;

    // When the service is about to send other text under it
    const changed = { channel: 'eng', text: 'deploy finished, and the keys are in #random' };
    expect(await refusalOf(() => svc?.verify(token, changed) as Promise<unknown>)).toBe('actionpass_payload_hash_mismatch');

    // Then the refusal was recorded before it was answered, with the authorized and the presented hash
    const records = await ledgerRecords(dir);
    expect(records.at(-1)).toMatchObject({
      type: 'execution.blocked',
      stream: `action:${claims.actionId}`,
      data: { actionId: claims.actionId, reason: 'actionpass_payload_hash_mismatch', approvedPayloadHash: hashCanonical(sent), executedPayloadHash: hashCanonical(changed) },
    });
    // And the pass is spent: not for its own payload either, and a second attempt adds no second ending
    expect(await refusalOf(() => svc?.verify(token, sent) as Promise<unknown>)).toBe('actionpass_replayed');
    expect(await refusalOf(() => svc?.verify(token, changed) as Promise<unknown>)).toBe('actionpass_replayed');
    expect(await ledgerRecords(dir)).toHaveLength(records.length);
    // And no outcome can be recorded for it
    expect(await refusalOf(() => svc?.record(claims, { outcome: 'succeeded', payload: sent }) as Promise<unknown>)).toBe('actionpass_not_verified');
    expect((await ledgerRecords(dir)).filter((record) => record.type === 'execution.completed')).toEqual([]);

    const report = await closeAndVerify(dir);
    expect(report.equivalence).toEqual({ equivalent: 0, blocked: 1, violated: 0 });
  });

  it('concurrent refusals of one pass record one execution.blocked', async () => {
    // Given a pass
    const dir = workspace();
    svc = await createSvc({ config: join(dir, 'svc.yml') });
    const decision = await svc.authorize(action('eng'));
    const token = decision.actionPass?.token as string;

    // When two attempts with other payloads race
    const codes = await Promise.all([refusalOf(() => svc?.verify(token, { ...sent, text: 'one' }) as Promise<unknown>), refusalOf(() => svc?.verify(token, { ...sent, text: 'two' }) as Promise<unknown>)]);

    // Then the first is blocked and recorded, the second finds the pass spent
    expect(codes).toEqual(['actionpass_payload_hash_mismatch', 'actionpass_replayed']);
    expect((await ledgerRecords(dir)).filter((record) => record.type === 'execution.blocked')).toHaveLength(1);
    expect((await closeAndVerify(dir)).equivalence).toEqual({ equivalent: 0, blocked: 1, violated: 0 });
  });

  it('an expired pass is refused and recorded', async () => {
    // Given a pass, and a clock the test moves
    const dir = workspace();
    const clock = { now: Date.now() };
    svc = await createSvc({ config: join(dir, 'svc.yml'), now: () => clock.now });
    const decision = await svc.authorize(action('eng'));
    const claims = decision.actionPass?.claims as ActionPassClaims;

    // When it is presented, for its own payload, after it expired (passes live 300 s)
    clock.now += 10 * 60_000;
    expect(await refusalOf(() => svc?.verify(decision.actionPass?.token as string, sent) as Promise<unknown>)).toBe('actionpass_expired');

    // Then the ledger holds the block, with the pair (equal: the payload was not the problem)
    expect((await ledgerRecords(dir)).at(-1)).toMatchObject({
      type: 'execution.blocked',
      data: { actionId: claims.actionId, reason: 'actionpass_expired', approvedPayloadHash: hashCanonical(sent), executedPayloadHash: hashCanonical(sent) },
    });
    expect((await closeAndVerify(dir)).equivalence).toEqual({ equivalent: 0, blocked: 1, violated: 0 });
  });

  it('a token svc did not sign is refused and records nothing, and leaves the real pass usable', async () => {
    // Given a real pass, and the ledger as it stands
    const dir = workspace();
    svc = await createSvc({ config: join(dir, 'svc.yml') });
    const decision = await svc.authorize(action('eng'));
    const token = decision.actionPass?.token as string;
    const claims = decision.actionPass?.claims as ActionPassClaims;
    const before = await readLedgerLines(join(dir, '.svc/ledger.jsonl'));
    const [header, , signature] = token.split('.');
    const changed = { ...sent, text: 'deploy finished!' };
    const kid = JSON.parse(Buffer.from(header as string, 'base64url').toString('utf8')).kid as string;

    // When forgeries are presented: garbage, the claims rebound to another payload under the real
    // signature, and the real claims signed by a key of the same name that svc does not trust
    const rebound = `${header}.${Buffer.from(JSON.stringify({ ...claims, payloadHash: hashCanonical(changed) })).toString('base64url')}.${signature}`;
    const selfMade = signCompactJws(generateSigningKey(kid), { typ: 'svc-actionpass+jwt', kid }, claims);
    for (const forged of ['not-a-token', `${header}.e30.${signature}`, rebound, selfMade]) {
      expect(await refusalOf(() => svc?.verify(forged, changed) as Promise<unknown>)).toBe('actionpass_invalid');
    }

    // Then nothing was written: a forgery names no action the ledger can trust
    expect((await readLedgerLines(join(dir, '.svc/ledger.jsonl'))).map((line) => line.hash)).toEqual(before.map((line) => line.hash));
    // And the pass they imitated was not spent by them
    const verified = await svc.verify(token, sent);
    await svc.record(verified, { outcome: 'succeeded', payload: sent });
    expect((await closeAndVerify(dir)).equivalence).toEqual({ equivalent: 1, blocked: 0, violated: 0 });
  });

  it('a pass svc signed for another audience is ours, so its refusal is recorded', async () => {
    // Given a pass re-issued under svc's own ActionPass key for another audience
    const dir = workspace();
    svc = await createSvc({ config: join(dir, 'svc.yml') });
    const decision = await svc.authorize(action('eng'));
    const claims = decision.actionPass?.claims as ActionPassClaims;
    const header = JSON.parse(Buffer.from((decision.actionPass?.token as string).split('.')[0] as string, 'base64url').toString('utf8')) as { kid: string };
    const key = await readKeyFile(join(dir, '.svc/keys', keyFileName(header.kid)));
    const elsewhere = issueActionPass(key, { ...claims, aud: 'svc.elsewhere' });

    // When it is presented here
    expect(await refusalOf(() => svc?.verify(elsewhere, sent) as Promise<unknown>)).toBe('actionpass_invalid');

    // Then the block is recorded for the action it names
    expect((await ledgerRecords(dir)).at(-1)).toMatchObject({ type: 'execution.blocked', data: { actionId: claims.actionId, reason: 'actionpass_invalid' } });
    expect((await closeAndVerify(dir)).equivalence).toEqual({ equivalent: 0, blocked: 1, violated: 0 });
  });

  it('when the ledger cannot be written, verify accepts no pass, for its own payload or another', () => {
    // Given the SDK in a process whose ledger fills up for real (a file size limit: the kernel refuses the write)
    const dir = workspace();
    const child = spawnSync('bash', ['-c', `ulimit -f 40 && exec "$0" "$@"`, process.execPath, SDK_LEDGER_FULL, join(dir, 'svc.yml')], { encoding: 'utf8', timeout: 60_000 });
    expect(child.status, child.stderr).toBe(0);
    const result = JSON.parse(child.stdout.trim()) as { passes: number; filled: unknown; ownPayload: unknown; otherPayload: unknown };

    // Then authorize reports it, and a pass issued before is refused, not accepted for a side effect whose outcome could not be recorded
    expect(result.passes).toBeGreaterThan(1);
    expect(result.filled).toEqual({ code: 'ledger_unavailable' });
    expect(result.ownPayload).toEqual({ code: 'ledger_unavailable' });
    expect(result.otherPayload).toEqual({ code: 'ledger_unavailable' });
  });
});
