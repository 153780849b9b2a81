/**
 * The scenarios end to end: the real `svc proxy` child process, real HTTP over loopback,
 * the real ledger on disk, the real `svc approvals`, `svc export`, `svc verify-export` and
 * `svc prove-equivalence` executables. Nothing is mocked; every hash is recomputed here from the
 * bytes (JCS via the `canonicalize` package, sha256 via node:crypto), not taken from svc.
 */
import canonicalize from 'canonicalize';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  action,
  chatAction,
  emailAction,
  freePort,
  get,
  makeWorkspace,
  poll,
  post,
  readLedgerLines,
  recordsOfType,
  replaceFile,
  REVIEWER,
  sha256,
  startProxyProcess,
  svc,
  svcJson,
  type DecisionBody,
  type ProxyProcess,
  type Workspace,
} from '../support/proxy.js';

const HASH = /^sha256:[0-9a-f]{64}$/;

function jcs(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('not canonicalizable');
  return text;
}

/** Files under a directory, recursively, as paths relative to it; [] if it does not exist. */
async function filesUnder(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** The action as svc must have normalized it: the caller's action with the configured tenant. */
function stamped(body: Record<string, any>, tenant = 'org:acme'): Record<string, any> {
  return { ...body, actor: { ...body.actor, tenant } };
}

describe('svc proxy over HTTP: deny, allow, step-up, altered body, replayed approval, evidence', () => {
  let ws: Workspace;
  let proxy: ProxyProcess;
  // Shared by the step-up tests, which follow one approval through its life.
  const external = emailAction('partner@example.com', 'Q3 numbers', 'Attached are the Q3 numbers.');
  let approvalId = '';
  let requestPayloadHash = '';
  let blockedActionId = '';
  let executedViaApprovalId = '';

  beforeAll(async () => {
    // `svc approvals approve` reaches the proxy at proxy.port of svc.yml, so the proxy runs there.
    const port = await freePort();
    ws = await makeWorkspace({ port });
    const reviewer = await svcJson<{ reviewer: string; file: string }>(['keys', 'add-reviewer', '--as', REVIEWER, '--config', ws.configFile], { env: ws.env });
    expect(reviewer.reviewer).toBe(REVIEWER);
    expect(reviewer.file.startsWith(ws.reviewerKeysDir)).toBe(true);
    proxy = await startProxyProcess({ configFile: ws.configFile, env: ws.env, port });
  });

  afterAll(async () => {
    await proxy?.stop('SIGKILL');
  });

  it('prints one JSON line with its loopback url, tenant, policy hash and ledger once listening', async () => {
    expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(proxy.tenant).toBe('org:acme');
    expect(proxy.policyHash).toMatch(HASH);
    expect(proxy.ledger).toBe(ws.ledger);
    const health = await get(proxy.url, '/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ ok: true, tenant: 'org:acme', policyHash: proxy.policyHash });
    const lines = await readLedgerLines(ws.ledger);
    expect(lines[0]?.record.type).toBe('ledger.genesis');
    expect(recordsOfType(lines, 'config.loaded').map((line) => line.record.data.policyHash)).toEqual([proxy.policyHash]);
  });

  it('denies a chat message to a channel off the allowlist: 200 with the reason, no pass, nothing delivered', async () => {
    const body = chatAction('random', 'lunch?');
    const answer = await post<DecisionBody>(proxy.url, '/actions', body);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    const decided = answer.body;
    expect(decided.status).toBe('decided');
    expect(decided.decision).toMatchObject({ decision: 'deny', ruleId: 'chat-other-channels', policyHash: proxy.policyHash });
    expect(decided.decision.reasons).toContain('channel_not_allowlisted');
    expect(decided.explanation.length).toBeGreaterThan(0);
    expect(decided.actionPass).toBeUndefined();
    expect(decided.approval).toBeUndefined();
    expect(decided.execution).toBeUndefined();
    expect(decided.action.payloadHash).toBe(sha256(jcs(body.capability && (body.capability as any).payload)));
    expect(decided.ledger.record).toEqual({ type: 'policy.decided', payloadHash: decided.action.payloadHash });
    expect(await filesUnder(join(ws.outbox, 'chat'))).toEqual([]);

    const lines = await readLedgerLines(ws.ledger);
    const record = lines[decided.ledger.seq];
    expect(record?.hash).toBe(decided.ledger.hash);
    expect(record?.record).toMatchObject({ type: 'policy.decided', data: { actionId: decided.action.actionId, decision: 'deny' } });
    expect(lines.filter((line) => line.record.data.actionId === decided.action.actionId).map((line) => line.record.type)).toEqual(['action.received', 'policy.decided']);
  });

  it('allows and executes a chat message to #eng: the outbox file is the canonical payload, and its sha256 is every hash the answer names', async () => {
    const body = chatAction('eng', 'deploy finished');
    const answer = await post<DecisionBody>(proxy.url, '/actions', body);
    expect(answer.status).toBe(200);
    const executed = answer.body;
    expect(executed.status).toBe('executed');
    expect(executed.decision).toMatchObject({ decision: 'allow', ruleId: 'chat-allowlisted-channels' });
    expect(executed.execution?.outcome).toBe('succeeded');

    const files = await filesUnder(join(ws.outbox, 'chat', 'eng'));
    expect(files).toHaveLength(1);
    const delivered = await readFile(join(ws.outbox, 'chat', 'eng', files[0] as string));
    expect(delivered.toString('utf8')).toBe(jcs({ channel: 'eng', text: 'deploy finished' }));
    const fileHash = sha256(delivered);
    expect(fileHash).toBe(executed.execution?.executedPayloadHash);
    expect(fileHash).toBe(executed.execution?.approvedPayloadHash);
    expect(fileHash).toBe(executed.actionPass?.claims.payloadHash);
    expect(fileHash).toBe(executed.ledger.record.payloadHash);
    expect(fileHash).toBe(executed.action.payloadHash);

    const lines = await readLedgerLines(ws.ledger);
    const decided = lines[executed.ledger.seq];
    expect(decided?.hash).toBe(executed.ledger.hash);
    expect(decided?.record).toMatchObject({ type: 'policy.decided', data: { actionId: executed.action.actionId, decision: 'allow' } });
    const completed = recordsOfType(lines, 'execution.completed').find((line) => line.record.data.actionId === executed.action.actionId);
    expect(completed?.record.data).toMatchObject({ passId: executed.actionPass?.claims.jti, approvedPayloadHash: fileHash, executedPayloadHash: fileHash, outcome: 'succeeded' });
    expect(completed?.seq).toBeGreaterThan(executed.ledger.seq);
  });

  it('stamps the configured tenant over the caller\'s: in the pass, the ledger and the action hash', async () => {
    const body = chatAction('ops', 'rollout 3/5', { actor: { tenant: 'org:evil' } });
    const answer = await post<DecisionBody>(proxy.url, '/authorize', body);
    expect(answer.status).toBe(200);
    expect(answer.body.actionPass?.claims.tenant).toBe('org:acme');
    expect(answer.body.action.actionHash).toBe(sha256(jcs(stamped(body))));
    expect(answer.body.action.actionHash).not.toBe(sha256(jcs(body)));
    const received = recordsOfType(await readLedgerLines(ws.ledger), 'action.received').find((line) => line.record.data.actionId === answer.body.action.actionId);
    expect(received?.record.data.action.actor.tenant).toBe('org:acme');
    expect(received?.record.data.action).toEqual(stamped(body));
  });

  it('/authorize returns a pass for an allow and executes nothing; no pass for a deny', async () => {
    const before = await filesUnder(ws.outbox);
    const allowed = await post<DecisionBody>(proxy.url, '/authorize', chatAction('deploys', 'v1.2.3 is out'));
    expect(allowed.status).toBe(200);
    expect(allowed.body.status).toBe('decided');
    expect(allowed.body.decision.decision).toBe('allow');
    expect(allowed.body.execution).toBeUndefined();
    const claims = allowed.body.actionPass?.claims;
    expect(allowed.body.actionPass?.token.split('.')).toHaveLength(3);
    expect(claims).toMatchObject({
      iss: 'svc.local',
      aud: 'svc.adapters',
      sub: 'agent:deployer',
      tenant: 'org:acme',
      tool: 'chat.message.send',
      resource: 'channel:deploys',
      actionId: allowed.body.action.actionId,
      actionHash: allowed.body.action.actionHash,
      payloadHash: sha256(jcs({ channel: 'deploys', text: 'v1.2.3 is out' })),
      policyHash: proxy.policyHash,
      decisionSeq: allowed.body.ledger.seq,
    });
    expect(claims?.exp - claims?.iat).toBe(300);
    const issued = recordsOfType(await readLedgerLines(ws.ledger), 'actionpass.issued').find((line) => line.record.data.actionId === allowed.body.action.actionId);
    expect(issued?.record.data).toMatchObject({ passId: claims?.jti, token: allowed.body.actionPass?.token });

    const denied = await post<DecisionBody>(proxy.url, '/authorize', chatAction('general', 'hello all'));
    expect(denied.status).toBe(200);
    expect(denied.body.decision.decision).toBe('deny');
    expect(denied.body.decision.reasons).toContain('channel_not_allowlisted');
    expect(denied.body.actionPass).toBeUndefined();
    expect(await filesUnder(ws.outbox)).toEqual(before);
  });

  it('/authorize holds a tool with a handler to its contract: a payload /actions would refuse gets no pass and no record', async () => {
    const internal = emailAction('ana@acme.example', 'status', 'all green');
    const capability = (internal as { capability: { payload: Record<string, unknown> } }).capability;
    const smuggled = [
      // Each of these matched the example's `to: { glob: "*@acme.example" }` allow rule.
      { ...internal, capability: { ...capability, resource: 'mailbox:evil@evil.example, ana@acme.example', payload: { ...capability.payload, to: 'evil@evil.example, ana@acme.example' } } },
      { ...internal, capability: { ...capability, payload: { ...capability.payload, bcc: 'evil@evil.example' } } },
      // The rule reads payload.channel; the resource names another channel.
      action({ capability: { tool: 'chat.message.send', resource: 'channel:random', payload: { channel: 'eng', text: 'hi' } } }),
    ];
    // The writer's timer may seal a checkpoint of the earlier tests' records meanwhile: those are not this test's.
    const recordsButCheckpoints = async () => (await readLedgerLines(ws.ledger)).filter((line) => line.record.type !== 'ledger.checkpoint').length;
    const before = await recordsButCheckpoints();
    for (const body of smuggled) {
      const answer = await post(proxy.url, '/authorize', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.code).toBe('schema_invalid');
      expect(answer.body.actionPass).toBeUndefined();
    }
    // The hook mark cannot carry an adapter call past its contract either.
    const marked = await post(proxy.url, '/authorize', smuggled[1], { 'svc-source': 'hook' });
    expect(marked.status).toBe(400);
    expect(marked.body.error.message).toContain('a hook\'s action names');
    expect(await recordsButCheckpoints()).toBe(before);

    const plain = await post<DecisionBody>(proxy.url, '/authorize', internal);
    expect(plain.body.decision.decision).toBe('allow');
    expect(plain.body.actionPass?.claims.resource).toBe('mailbox:ana@acme.example');
  });

  it('an external recipient steps up: pending approval bound to the exact payload, nothing sent', async () => {
    const answer = await post<DecisionBody>(proxy.url, '/actions', external);
    expect(answer.status).toBe(200);
    const pending = answer.body;
    expect(pending.status).toBe('pending_approval');
    expect(pending.decision).toMatchObject({ decision: 'step_up', ruleId: 'email-external-recipients' });
    expect(pending.decision.reasons).toContain('external_recipient');
    expect(pending.approval?.status).toBe('pending');
    expect(pending.approval?.approvalId).toMatch(/^[A-Za-z0-9._:@/+-]+$/);
    expect(pending.actionPass).toBeUndefined();
    expect(pending.explanation).toContain(pending.approval?.approvalId);
    approvalId = pending.approval?.approvalId as string;
    requestPayloadHash = pending.action.payloadHash;
    expect(requestPayloadHash).toBe(sha256(jcs((external.capability as any).payload)));
    expect(await filesUnder(join(ws.outbox, 'email'))).toEqual([]);

    const requested = recordsOfType(await readLedgerLines(ws.ledger), 'approval.requested').find((line) => line.record.data.approvalId === approvalId);
    expect(requested?.record.data).toMatchObject({ actionId: pending.action.actionId, payloadHash: requestPayloadHash, actionHash: pending.action.actionHash });
  });

  it('shows the open approval with its exact action over HTTP and through svc approvals list/show', async () => {
    const list = await get(proxy.url, '/approvals');
    expect(list.status).toBe(200);
    expect(list.body.approvals.map((approval: { approvalId: string }) => approval.approvalId)).toContain(approvalId);
    const one = await get(proxy.url, `/approvals/${encodeURIComponent(approvalId)}`);
    expect(one.status).toBe(200);
    expect(one.body.approval).toMatchObject({ approvalId, status: 'pending', payloadHash: requestPayloadHash });
    expect(one.body.approval.action).toEqual(stamped(external));

    const cliList = await svcJson<{ approvals: { approvalId: string; status: string }[] }>(['approvals', 'list', '--config', ws.configFile], { env: ws.env });
    expect(cliList.approvals.find((approval) => approval.approvalId === approvalId)?.status).toBe('pending');
    const cliShow = await svcJson<{ approval: { payload: unknown; payloadHash: string; tool: string; resource: string } }>(['approvals', 'show', approvalId, '--config', ws.configFile], { env: ws.env });
    expect(cliShow.approval).toMatchObject({ payloadHash: requestPayloadHash, tool: 'email.message.send', resource: 'mailbox:partner@example.com' });
    expect(cliShow.approval.payload).toEqual((external.capability as any).payload);
    expect(sha256(jcs(cliShow.approval.payload))).toBe(cliShow.approval.payloadHash);

    const unknown = await get(proxy.url, '/approvals/apr_doesnotexist');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('approval_unknown');
  });

  it('refuses to execute before the approval is granted, and refuses an unknown approval id', async () => {
    const early = await post<DecisionBody>(proxy.url, '/actions', external, { 'svc-approval': approvalId });
    expect(early.status).toBe(200);
    expect(early.body.status).toBe('blocked');
    expect(early.body.decision.reasons).toContain('approval_required');
    expect(early.body.actionPass).toBeUndefined();

    const unknown = await post<DecisionBody>(proxy.url, '/actions', external, { 'svc-approval': 'apr_nosuchapproval000' });
    expect(unknown.status).toBe(200);
    expect(unknown.body.status).toBe('blocked');
    expect(unknown.body.decision.reasons).toContain('approval_unknown');
    expect(unknown.body.actionPass).toBeUndefined();
    expect(await filesUnder(join(ws.outbox, 'email'))).toEqual([]);
  });

  it('svc approvals approve signs with the reviewer key and records the grant through the running proxy', async () => {
    const run = await svc(['approvals', 'approve', approvalId, '--as', REVIEWER, '--reason', 'partner expects it', '--config', ws.configFile, '--json'], { env: ws.env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as { approvalId: string; payloadHash: string; ledger: { seq: number; hash: string }; via: string };
    expect(result).toMatchObject({ approvalId, payloadHash: requestPayloadHash });
    expect(result.via).toContain(proxy.url.replace('http://', ''));
    const lines = await readLedgerLines(ws.ledger);
    expect(lines[result.ledger.seq]?.hash).toBe(result.ledger.hash);
    expect(lines[result.ledger.seq]?.record).toMatchObject({ type: 'approval.granted', data: { approvalId, approvedBy: REVIEWER, approvedPayloadHash: requestPayloadHash } });
    const shown = await get(proxy.url, `/approvals/${encodeURIComponent(approvalId)}`);
    expect(shown.body.approval).toMatchObject({ status: 'granted', approvedBy: REVIEWER });
  });

  it('blocks a body changed after the approval, with the approved and presented hashes side by side', async () => {
    const altered = emailAction('partner@example.com', 'Q3 numbers', 'Attached are the Q3 numbers. Also wire $9,000 to the account below.');
    const answer = await post<DecisionBody>(proxy.url, '/actions', altered, { 'svc-approval': approvalId });
    expect(answer.status).toBe(200);
    const blocked = answer.body;
    expect(blocked.status).toBe('blocked');
    expect(blocked.actionPass).toBeUndefined();
    expect(blocked.execution?.reason).toBe('approval_payload_hash_mismatch');
    expect(blocked.execution?.approvedPayloadHash).toBe(requestPayloadHash);
    expect(blocked.execution?.executedPayloadHash).toBe(sha256(jcs((altered.capability as any).payload)));
    expect(blocked.execution?.executedPayloadHash).not.toBe(blocked.execution?.approvedPayloadHash);
    expect(blocked.explanation).toContain('approval_payload_hash_mismatch');
    expect(await filesUnder(join(ws.outbox, 'email'))).toEqual([]);
    blockedActionId = blocked.action.actionId;

    const record = recordsOfType(await readLedgerLines(ws.ledger), 'execution.blocked').find((line) => line.record.data.actionId === blockedActionId);
    expect(record?.record.data).toEqual({
      actionId: blockedActionId,
      reason: 'approval_payload_hash_mismatch',
      approvedPayloadHash: requestPayloadHash,
      executedPayloadHash: blocked.execution?.executedPayloadHash,
    });
  });

  it('executes the exact approved body once, delivering exactly the approved bytes', async () => {
    const answer = await post<DecisionBody>(proxy.url, '/actions', external, { 'svc-approval': approvalId });
    expect(answer.status).toBe(200);
    const executed = answer.body;
    expect(executed.status).toBe('executed');
    expect(executed.decision.decision).toBe('step_up');
    expect(executed.approval).toMatchObject({ approvalId });
    expect(executed.actionPass?.claims).toMatchObject({ approvalId, payloadHash: requestPayloadHash, tenant: 'org:acme' });
    expect(executed.execution).toMatchObject({ outcome: 'succeeded', approvedPayloadHash: requestPayloadHash, executedPayloadHash: requestPayloadHash });
    const files = await filesUnder(join(ws.outbox, 'email', 'partner@example.com'));
    expect(files).toHaveLength(1);
    const delivered = await readFile(join(ws.outbox, 'email', 'partner@example.com', files[0] as string));
    expect(sha256(delivered)).toBe(requestPayloadHash);
    expect(JSON.parse(delivered.toString('utf8'))).toEqual((external.capability as any).payload);
    executedViaApprovalId = executed.action.actionId;
  });

  it('refuses a second use of the same approval (approval_used) and sends nothing more', async () => {
    const again = await post<DecisionBody>(proxy.url, '/actions', external, { 'svc-approval': approvalId });
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('blocked');
    expect(again.body.decision.reasons).toContain('approval_used');
    expect(again.body.actionPass).toBeUndefined();
    expect(await filesUnder(join(ws.outbox, 'email', 'partner@example.com'))).toHaveLength(1);
    const listed = await get(proxy.url, '/approvals');
    expect(listed.body.approvals.map((approval: { approvalId: string }) => approval.approvalId)).not.toContain(approvalId);
  });

  it('a rejected approval (svc approvals reject, or POST /approvals/<id>/reject) cannot be used', async () => {
    const viaCli = await post<DecisionBody>(proxy.url, '/actions', emailAction('auditor@example.org', 'books', 'the ledger export'));
    const cliId = viaCli.body.approval?.approvalId as string;
    expect(viaCli.body.status).toBe('pending_approval');
    const rejected = await svc(['approvals', 'reject', cliId, '--as', REVIEWER, '--reason', 'not this quarter', '--config', ws.configFile, '--json'], { env: ws.env });
    expect(rejected.code).toBe(0);

    const viaHttp = await post<DecisionBody>(proxy.url, '/actions', emailAction('press@example.net', 'launch', 'embargoed until Monday'));
    const httpId = viaHttp.body.approval?.approvalId as string;
    const reject = await post(proxy.url, `/approvals/${encodeURIComponent(httpId)}/reject`, { rejectedBy: REVIEWER, reason: 'embargo' });
    expect(reject.status).toBe(200);
    expect(reject.body.approval).toEqual({ approvalId: httpId, status: 'rejected' });
    const badReviewer = await post(proxy.url, `/approvals/${encodeURIComponent(httpId)}/reject`, { rejectedBy: 'lead', reason: 'x' });
    expect(badReviewer.status).toBe(400);
    expect(badReviewer.body.error.code).toBe('schema_invalid');

    for (const [id, body] of [
      [cliId, emailAction('auditor@example.org', 'books', 'the ledger export')],
      [httpId, emailAction('press@example.net', 'launch', 'embargoed until Monday')],
    ] as const) {
      const attempt = await post<DecisionBody>(proxy.url, '/actions', body, { 'svc-approval': id });
      expect(attempt.status).toBe(200);
      expect(attempt.body.status).toBe('blocked');
      expect(attempt.body.decision.reasons).toContain('approval_rejected');
      expect(attempt.body.actionPass).toBeUndefined();
    }
    const rejectedRecords = recordsOfType(await readLedgerLines(ws.ledger), 'approval.rejected').map((line) => line.record.data);
    expect(rejectedRecords).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ approvalId: cliId, rejectedBy: REVIEWER, reason: 'not this quarter' }),
        expect.objectContaining({ approvalId: httpId, rejectedBy: REVIEWER, reason: 'embargo' }),
      ]),
    );
    expect(await filesUnder(join(ws.outbox, 'email'))).toEqual([expect.stringMatching(/^partner@example\.com\//)]);
  });

  it('stops cleanly on SIGTERM with a final checkpoint, and the ledger exports, verifies and proves equivalence', async () => {
    // While it runs, its address is kept beside the ledger for svc approvals; a clean stop removes it.
    expect(JSON.parse(await readFile(`${ws.ledger}.proxy.json`, 'utf8'))).toMatchObject({ url: proxy.url, pid: proxy.child.pid });
    const stopped = await proxy.stop('SIGTERM');
    expect(stopped).toEqual({ code: 0, signal: null });
    expect(existsSync(`${ws.ledger}.proxy.json`)).toBe(false);
    const lines = await readLedgerLines(ws.ledger);
    expect(lines.at(-1)?.record.type).toBe('ledger.checkpoint');
    expect(lines.at(-1)?.record.data.size).toBe(lines.length - 1);
    const sidecar = await readFile(`${ws.ledger}.checkpoint`, 'utf8');
    // The sidecar covers the in-band checkpoint record too (docs/ledger-format.md 6.3): every record.
    expect(sidecar.split('\n')[1]).toBe(String(lines.length));

    const out = join(ws.dir, 'evidence');
    const exported = await svc(['export', '--out', out, '--ledger', ws.ledger, '--json'], { env: ws.env });
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout)).toMatchObject({ size: lines.length });

    const verified = await svc(['verify-export', out, '--json'], { env: ws.env });
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    const report = JSON.parse(verified.stdout) as { valid: boolean; records: number; equivalence: { equivalent: number; blocked: number; violated: number } };
    expect(report.valid).toBe(true);
    expect(report.records).toBe(lines.length);
    expect(report.equivalence).toEqual({ equivalent: 2, blocked: 1, violated: 0 });

    const verifiedLedger = await svc(['verify-export', ws.ledger], { env: ws.env });
    expect(verifiedLedger.code, verifiedLedger.stdout).toBe(0);

    const proved = await svc(['prove-equivalence', '--ledger', ws.ledger, '--json'], { env: ws.env });
    expect(proved.code, proved.stdout + proved.stderr).toBe(0);
    const proof = JSON.parse(proved.stdout) as { holds: boolean; verdicts: { status: string; actionId: string; reason?: string; approvedPayloadHash: string; executedPayloadHash: string }[]; uncovered: string[] };
    expect(proof.holds).toBe(true);
    expect(proof.uncovered).toEqual([]);
    expect(proof.verdicts.find((verdict) => verdict.actionId === blockedActionId)).toMatchObject({
      status: 'blocked',
      reason: 'approval_payload_hash_mismatch',
      approvedPayloadHash: requestPayloadHash,
    });
    expect(proof.verdicts.find((verdict) => verdict.actionId === executedViaApprovalId)).toMatchObject({ status: 'equivalent', approvedPayloadHash: requestPayloadHash, executedPayloadHash: requestPayloadHash });
    expect(proof.verdicts.filter((verdict) => verdict.status === 'equivalent')).toHaveLength(2);

    const text = await svc(['prove-equivalence', '--ledger', ws.ledger], { env: ws.env });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`blocked\\s+${blockedActionId}.*approval_payload_hash_mismatch`));
  });
});

describe('svc approvals approve and a proxy started with --port 0', () => {
  it('finds the running proxy of the same svc.yml whatever port it bound, and the approval executes', async () => {
    // proxy.port in svc.yml names a port nothing listens on; the proxy picks its own with --port 0.
    const ws = await makeWorkspace({ port: await freePort() });
    await svcJson(['keys', 'add-reviewer', '--as', REVIEWER, '--config', ws.configFile], { env: ws.env });
    const proxy = await startProxyProcess({ configFile: ws.configFile, env: ws.env });
    try {
      const body = emailAction('partner@example.com', 'hello', 'first contact');
      const pending = await post<DecisionBody>(proxy.url, '/actions', body);
      const id = pending.body.approval?.approvalId as string;
      expect(pending.body.status).toBe('pending_approval');
      const run = await svc(['approvals', 'approve', id, '--as', REVIEWER, '--config', ws.configFile, '--json'], { env: ws.env });
      expect(run.code, `svc approvals approve against a --port 0 proxy: ${run.stdout}${run.stderr}`).toBe(0);
      const executed = await post<DecisionBody>(proxy.url, '/actions', body, { 'svc-approval': id });
      expect(executed.body.status).toBe('executed');
    } finally {
      await proxy.stop('SIGKILL');
    }
  });
});

describe('svc proxy reloads svc.yml while it runs', () => {
  let ws: Workspace;
  let proxy: ProxyProcess;
  let original = '';

  beforeAll(async () => {
    ws = await makeWorkspace();
    original = await readFile(ws.configFile, 'utf8');
    proxy = await startProxyProcess({ configFile: ws.configFile, env: ws.env });
  });

  afterAll(async () => {
    await proxy?.stop('SIGKILL');
  });

  const decide = async (channel: string): Promise<DecisionBody> => {
    const answer = await post<DecisionBody>(proxy.url, '/authorize', chatAction(channel, 'status update'));
    expect(answer.status).toBe(200);
    return answer.body;
  };

  it('a valid change takes effect within seconds and is recorded as a second config.loaded', async () => {
    expect((await decide('eng')).decision.decision).toBe('allow');
    const withoutEng = original.replace('in: [eng, ops, deploys]', 'in: [ops, deploys]').replace('not_in: [eng, ops, deploys]', 'not_in: [ops, deploys]');
    expect(withoutEng).not.toBe(original);
    await writeFile(ws.configFile, withoutEng);

    const denied = await poll('the reloaded policy to deny #eng', async () => {
      const answer = await decide('eng');
      return answer.decision.decision === 'deny' ? answer : undefined;
    });
    expect(denied.decision.reasons).toContain('channel_not_allowlisted');
    expect(denied.decision.policyHash).not.toBe(proxy.policyHash);
    expect((await decide('ops')).decision.decision).toBe('allow');

    const loaded = recordsOfType(await readLedgerLines(ws.ledger), 'config.loaded');
    expect(loaded).toHaveLength(2);
    expect(loaded[0]?.record.data.policyHash).toBe(proxy.policyHash);
    expect(loaded[1]?.record.data.policyHash).toBe(denied.decision.policyHash);
    expect(loaded[1]?.seq).toBeLessThan(denied.ledger.seq);
    const health = await get(proxy.url, '/healthz');
    expect(health.body.policyHash).toBe(denied.decision.policyHash);
  });

  it('an invalid svc.yml is reported on stderr and the running policy stays in force', async () => {
    const inForce = (await get(proxy.url, '/healthz')).body.policyHash as string;
    const stderrBefore = proxy.stderr().length;
    const broken = (await readFile(ws.configFile, 'utf8')).replace('decision: deny', 'decision: perhaps');
    await replaceFile(ws.configFile, broken);
    const report = await poll('the reload error on stderr', async () => {
      const fresh = proxy.stderr().slice(stderrBefore);
      return fresh.includes('not reloaded') ? fresh : undefined;
    });
    expect(report).toContain(ws.configFile);
    expect(report).toContain('policy.rules.1.decision');

    expect((await get(proxy.url, '/healthz')).body.policyHash).toBe(inForce);
    const eng = await decide('eng');
    expect(eng.decision).toMatchObject({ decision: 'deny', policyHash: inForce });
    expect((await decide('ops')).decision.decision).toBe('allow');
    expect(recordsOfType(await readLedgerLines(ws.ledger), 'config.loaded')).toHaveLength(2);
  });

  it('keeps watching after an invalid file: restoring the original brings #eng back, as a third config.loaded', async () => {
    await replaceFile(ws.configFile, original);
    const allowed = await poll('the restored policy to allow #eng', async () => {
      const answer = await decide('eng');
      return answer.decision.decision === 'allow' ? answer : undefined;
    });
    expect(allowed.decision.policyHash).toBe(proxy.policyHash);
    const loaded = recordsOfType(await readLedgerLines(ws.ledger), 'config.loaded');
    expect(loaded).toHaveLength(3);
    expect(loaded[2]?.record.data.policyHash).toBe(proxy.policyHash);
  });

  it('a change that needs a restart (the tenant) is refused and reported; the running config stays', async () => {
    const before = recordsOfType(await readLedgerLines(ws.ledger), 'config.loaded').length;
    const stderrBefore = proxy.stderr().length;
    await replaceFile(ws.configFile, original.replace('tenant: org:acme', 'tenant: org:other'));
    await poll('the refused reload on stderr', async () => (proxy.stderr().slice(stderrBefore).includes('not reloaded') ? true : undefined));
    const answer = await post<DecisionBody>(proxy.url, '/authorize', chatAction('eng', 'still acme'));
    expect(answer.body.actionPass?.claims.tenant).toBe('org:acme');
    expect(recordsOfType(await readLedgerLines(ws.ledger), 'config.loaded')).toHaveLength(before);
    await replaceFile(ws.configFile, original);
  });
});
