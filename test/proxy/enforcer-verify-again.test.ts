/**
 * The Enforcer's own check immediately before a side effect (DESIGN.md 6), reached through real
 * registered handlers and a real ledger on disk: the approval artifact of a step-up, then the
 * ActionPass, against the hash of the bytes the handler is about to send. When it refuses,
 * nothing is delivered and `execution.blocked` records the hash that was authorized beside the
 * hash that was about to be sent. The adapter suites use a recording verifier; this is the real one.
 *
 * Time and revocation are moved while a handler prepares its call: the Enforcer's clock is
 * injected (`now`), and a handler can be held before its real work starts.
 */
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { signApprovalArtifact } from '../../src/actionpass/approval-artifact.js';
import { addReviewer, revokeKey } from '../../src/actionpass/key-ring.js';
import type { SigningKey } from '../../src/actionpass/keys.js';
import { demoHandlers } from '../../src/adapters/demo-handlers.js';
import { performVerified } from '../../src/adapters/perform-verified.js';
import { prepareCanonicalCall } from '../../src/adapters/prepared-call.js';
import type { ToolHandler } from '../../src/adapters/tool-handler.js';
import { loadConfig } from '../../src/config/load-config.js';
import { hashCanonical } from '../../src/events/canonical.js';
import { Enforcer, type Executed } from '../../src/proxy/enforcer.js';
import { readLedgerLines } from '../support/proxy.js';

const REVIEWER = 'user:lead@acme.example';
const opened: Enforcer[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const enforcer of opened.splice(0)) await enforcer.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

interface Setup {
  enforcer: Enforcer;
  ledger: string;
  trustFile: string;
  outbox: string;
  /** The Enforcer's clock, in ms; tests move it. */
  clock: { now: number };
}

/** An Enforcer over the example svc.yml in a fresh workspace, with these handlers and an injected clock. */
async function openEnforcer(handlers: (outbox: string) => ToolHandler[]): Promise<Setup> {
  const dir = await tempDir('svc-enforcer-');
  const configFile = join(dir, 'svc.yml');
  await copyFile(new URL('../../svc.yml.example', import.meta.url), configFile);
  const outbox = join(dir, '.svc/outbox');
  await mkdir(outbox, { recursive: true });
  const clock = { now: Date.now() };
  const enforcer = await Enforcer.open(await loadConfig(configFile), { handlers: handlers(outbox), now: () => clock.now, signer: 'in-thread' });
  opened.push(enforcer);
  return { enforcer, ledger: join(dir, '.svc/ledger.jsonl'), trustFile: join(dir, '.svc/trust.json'), outbox, clock };
}

function demo(outbox: string): ToolHandler[] {
  return demoHandlers({ outboxDir: outbox, sandboxDir: join(outbox, '..', 'sandbox') });
}

function demoHandler(outbox: string, tool: string): ToolHandler {
  const handler = demo(outbox).find((candidate) => candidate.tool === tool);
  if (!handler) throw new Error(`no demo handler for ${tool}`);
  return handler;
}

/**
 * A handler that signs every message before sending it, appending a footer to `field`: a real
 * delivery (one file per message in the outbox) of bytes that are not the payload the policy and
 * the reviewer saw, the way a template added after approval would change them.
 */
function footerHandler(tool: string, field: string, outbox: string): ToolHandler {
  return {
    tool,
    validate: () => undefined,
    async execute(action, context) {
      const payload = action.capability.payload;
      const call = prepareCanonicalCall({ ...payload, [field]: `${String(payload[field])}\n-- sent by the acme bot` });
      return performVerified(context, call, async (bytes) => {
        await writeFile(join(outbox, `${context.actionId}.json`), bytes);
        return { bytes: bytes.length };
      });
    },
  };
}

/**
 * Holds a handler before its real work starts, as one preparing a provider call would wait; the
 * test moves the clock or revokes a key in that moment, then lets it go on.
 */
function gate(): { hold(handler: ToolHandler): ToolHandler; reached: Promise<void>; release(): void } {
  let arrive = (): void => undefined;
  const reached = new Promise<void>((resolve) => (arrive = resolve));
  let release = (): void => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  return {
    reached,
    release: () => release(),
    hold: (handler) => ({
      tool: handler.tool,
      validate: (action) => handler.validate(action),
      async execute(action, context) {
        arrive();
        await released;
        return handler.execute(action, context);
      },
    }),
  };
}

function chat(channel: string, text: string) {
  return { schemaVersion: 'svc.action.v0', actor: { agentId: 'agent:service' }, intent: { taskId: 'verify-again' }, capability: { tool: 'chat.message.send', resource: `channel:${channel}`, payload: { channel, text } } };
}

function email(body: string) {
  const to = 'partner@example.com';
  return { schemaVersion: 'svc.action.v0', actor: { agentId: 'agent:service' }, intent: { taskId: 'verify-again' }, capability: { tool: 'email.message.send', resource: `mailbox:${to}`, payload: { to, subject: 'Q3', body } } };
}

function executed(result: Awaited<ReturnType<Enforcer['execute']>>): Executed {
  if ('invalid' in result) throw new Error(`invalid action: ${JSON.stringify(result.invalid)}`);
  return result;
}

/** The records of one action, in ledger order, read back from the file. */
async function recordsOf(ledger: string, actionId: string) {
  return (await readLedgerLines(ledger)).filter((line) => line.record.stream === `action:${actionId}`).map((line) => line.record);
}

/** Every file below `dir`, relative. */
async function delivered(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** A step-up email approved by a reviewer key in the trust store, ready to execute by approval id. */
async function approvedStepUp(setup: Setup, body: string): Promise<{ approvalId: string; reviewerKey: SigningKey; payloadHash: string }> {
  const reviewer = await addReviewer({ reviewer: REVIEWER, trustFile: setup.trustFile, keysDir: await tempDir('svc-enforcer-reviewer-') });
  const pending = executed(await setup.enforcer.execute(email(body), { source: 'proxy' }));
  const approvalId = pending.outcome.approval?.approvalId as string;
  const approval = setup.enforcer.approval(approvalId);
  if (!approval) throw new Error('no pending approval');
  const iat = Math.floor(setup.clock.now / 1000);
  const artifact = signApprovalArtifact(reviewer.key, {
    approvalId,
    actionId: approval.actionId,
    actionHash: approval.actionHash,
    payloadHash: approval.payloadHash,
    approvedBy: REVIEWER,
    mode: 'human',
    reason: 'reviewed',
    iat,
    exp: iat + 3600,
    tenant: setup.enforcer.tenant,
  });
  await setup.enforcer.grantApproval(approvalId, artifact);
  return { approvalId, reviewerKey: reviewer.key, payloadHash: approval.payloadHash };
}

/** The answer and the ledger agree: blocked before the side effect, with this reason and pair. */
async function expectBlocked(setup: Setup, result: Executed, expected: { reason: string; approvedPayloadHash: string; executedPayloadHash: string }): Promise<void> {
  expect(result.execution).toMatchObject({ status: 'blocked', ...expected });
  const records = await recordsOf(setup.ledger, result.actionId);
  expect(records.map((record) => record.type).slice(-2)).toEqual(['actionpass.issued', 'execution.blocked']);
  expect(records.at(-1)?.data).toEqual({ actionId: result.actionId, ...expected });
  expect(result.execution?.receipt?.seq).toBe((await readLedgerLines(setup.ledger)).findIndex((line) => line.record.type === 'execution.blocked' && line.record.data.actionId === result.actionId));
  expect(await delivered(setup.outbox)).toEqual([]);
}

describe('Enforcer: verify again immediately before the side effect', () => {
  it('a handler about to send other bytes than the ActionPass bound is blocked, with both hashes recorded and nothing delivered', async () => {
    const setup = await openEnforcer((outbox) => [footerHandler('chat.message.send', 'text', outbox)]);
    const action = chat('eng', 'deploy finished');
    const result = executed(await setup.enforcer.execute(action, { source: 'proxy' }));
    expect(result.outcome.decision.decision).toBe('allow');
    await expectBlocked(setup, result, {
      reason: 'actionpass_payload_hash_mismatch',
      approvedPayloadHash: hashCanonical(action.capability.payload),
      executedPayloadHash: hashCanonical({ ...action.capability.payload, text: 'deploy finished\n-- sent by the acme bot' }),
    });
    // The pass was issued for this one execution: it cannot be tried again, even for its own payload.
    expect(setup.enforcer.verifyPass(result.pass?.token as string, hashCanonical(action.capability.payload))).toMatchObject({ ok: false, reason: 'actionpass_replayed' });
  });

  it('a pass that expires while the handler prepares its call is blocked at the last moment (actionpass_expired)', async () => {
    const held = gate();
    const setup = await openEnforcer((outbox) => [held.hold(demoHandler(outbox, 'chat.message.send'))]);
    const action = chat('ops', 'rolled back');
    const running = setup.enforcer.execute(action, { source: 'proxy' });
    await held.reached;
    setup.clock.now += 10 * 60_000; // the pass lives 300 s
    held.release();
    const result = executed(await running);
    const payloadHash = hashCanonical(action.capability.payload);
    await expectBlocked(setup, result, { reason: 'actionpass_expired', approvedPayloadHash: payloadHash, executedPayloadHash: payloadHash });
  });

  it('a step-up whose handler is about to send other bytes than the reviewer approved is refused by the approval check (approval_payload_hash_mismatch)', async () => {
    const setup = await openEnforcer((outbox) => [footerHandler('email.message.send', 'body', outbox)]);
    const body = 'Attached are the Q3 numbers.';
    const { approvalId, payloadHash } = await approvedStepUp(setup, body);
    const result = executed(await setup.enforcer.execute(email(body), { source: 'proxy', presentedApproval: approvalId }));
    expect(result.pass?.claims.approvalId).toBe(approvalId);
    await expectBlocked(setup, result, {
      reason: 'approval_payload_hash_mismatch',
      approvedPayloadHash: payloadHash,
      executedPayloadHash: hashCanonical({ ...email(body).capability.payload, body: `${body}\n-- sent by the acme bot` }),
    });
  });

  it('a step-up whose reviewer key is revoked while the handler prepares its call is refused by the approval check (approval_invalid)', async () => {
    const held = gate();
    const setup = await openEnforcer((outbox) => [held.hold(demoHandler(outbox, 'email.message.send'))]);
    const body = 'Attached are the Q3 numbers.';
    const { approvalId, reviewerKey, payloadHash } = await approvedStepUp(setup, body);
    const running = setup.enforcer.execute(email(body), { source: 'proxy', presentedApproval: approvalId });
    await held.reached;
    await revokeKey(setup.trustFile, reviewerKey.name, new Date(setup.clock.now).toISOString());
    await setup.enforcer.refreshTrust(); // what the proxy's watcher of trust.json does
    held.release();
    const result = executed(await running);
    await expectBlocked(setup, result, { reason: 'approval_invalid', approvedPayloadHash: payloadHash, executedPayloadHash: payloadHash });
  });

  it('the unchanged approved payload still executes through the same checks', async () => {
    const setup = await openEnforcer(demo);
    const body = 'Attached are the Q3 numbers.';
    const { approvalId, payloadHash } = await approvedStepUp(setup, body);
    const result = executed(await setup.enforcer.execute(email(body), { source: 'proxy', presentedApproval: approvalId }));
    expect(result.execution).toMatchObject({ status: 'executed', approvedPayloadHash: payloadHash, executedPayloadHash: payloadHash });
    expect(await delivered(setup.outbox)).toHaveLength(1);
  });
});
