import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashCanonical } from '../../src/events/canonical.js';
import type { LedgerEvent } from '../../src/events/catalogue.js';
import { runCli } from '../support/cli.js';
import { openLedger, tempDir } from '../support/ledger.js';

const SVC_YML = `tenant: org:acme
policy:
  rules:
    - id: chat-allowlisted-channels
      when:
        tool: chat.message.send
        resource: "channel:*"
        payload:
          channel: { in: [eng, ops, deploys] }
      decision: allow
    - id: chat-other-channels
      when: { tool: chat.message.send, payload: { channel: { not_in: [eng, ops, deploys] } } }
      decision: deny
      reasons: [channel_not_allowlisted]
  budgets:
    - { id: chat-per-agent, tool: chat.message.send, max: 2, window: 1h }
`;

function chatAction(channel: string, tenant = 'org:someone-else') {
  return {
    schemaVersion: 'svc.action.v0' as const,
    actor: { agentId: 'agent:deployer', tenant },
    intent: { taskId: 'task-1' },
    capability: { tool: 'chat.message.send', resource: `channel:${channel}`, payload: { channel, text: 'deploy finished' } },
  };
}

/** A workspace with svc.yml and one action file per channel. */
async function workspace(config = SVC_YML): Promise<string> {
  const dir = await tempDir('svc-policy-');
  await writeFile(join(dir, 'svc.yml'), config);
  for (const channel of ['eng', 'random']) await writeFile(join(dir, `${channel}.json`), JSON.stringify(chatAction(channel)));
  return dir;
}

interface SimulationJson {
  decision: string;
  reasons: string[];
  ruleId: string;
  explanation: string;
  policyHash: string;
  actionHash: string;
  payloadHash: string;
  mode: string;
  budgetsCounted: string;
  trace: { ruleId: string; matched: boolean; failed?: string; budget?: { count: number; max: number; window: string } }[];
}

describe('svc policy simulate', () => {
  it('prints the decision, why, the hashes and the trace of every rule, and exits 0 even for a deny', async () => {
    const dir = await workspace();
    const result = await runCli(['policy', 'simulate', 'random.json'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const payloadHash = hashCanonical(chatAction('random').capability.payload);
    // The tenant of svc.yml is stamped on the action before it is hashed, as the proxy does.
    const actionHash = hashCanonical(chatAction('random', 'org:acme'));
    expect(result.stdout.split('\n')).toEqual([
      'decision     deny',
      'reasons      channel_not_allowlisted',
      'rule         chat-other-channels',
      'explanation  denied by rule chat-other-channels: channel "random" is not in [eng, ops, deploys] (channel_not_allowlisted)',
      'mode         enforce',
      expect.stringMatching(/^policyHash {3}sha256:[0-9a-f]{64}$/),
      `actionHash   ${actionHash}`,
      `payloadHash  ${payloadHash}`,
      'budgets      counted as 0 (pass --ledger <file> to count them from a ledger)',
      'trace',
      '  no match     chat-allowlisted-channels  failed: payload.channel in [eng, ops, deploys]',
      '  matched      chat-other-channels',
      '',
    ]);
  });

  it('--json gives the same as one document, and --mode hook turns no match into no_opinion', async () => {
    const dir = await workspace();
    const allowed = await runCli(['policy', 'simulate', 'eng.json', '--json'], { cwd: dir });
    expect(allowed.code).toBe(0);
    const decision = JSON.parse(allowed.stdout) as SimulationJson;
    expect(decision).toMatchObject({ decision: 'allow', reasons: ['rule_allow'], ruleId: 'chat-allowlisted-channels', mode: 'enforce', budgetsCounted: 'zero' });
    expect(decision.trace).toEqual([
      { ruleId: 'chat-allowlisted-channels', matched: true },
      { ruleId: 'chat-other-channels', matched: false, failed: 'payload.channel not_in [eng, ops, deploys]' },
      { ruleId: 'chat-per-agent', matched: false, failed: '0 allowed in the last 1h, below the maximum of 2', budget: { count: 0, max: 2, window: '1h' } },
    ]);

    const other = { ...chatAction('eng'), capability: { tool: 'fs.file.read', resource: 'file:README.md', payload: { path: 'README.md' } } };
    await writeFile(join(dir, 'read.json'), JSON.stringify(other));
    const enforce = JSON.parse((await runCli(['policy', 'simulate', 'read.json', '--json'], { cwd: dir })).stdout) as SimulationJson;
    const hook = JSON.parse((await runCli(['policy', 'simulate', 'read.json', '--json', '--mode', 'hook'], { cwd: dir })).stdout) as SimulationJson;
    expect([enforce.decision, enforce.reasons, enforce.ruleId]).toEqual(['deny', ['default_deny'], 'default']);
    expect([hook.decision, hook.reasons, hook.ruleId, hook.mode]).toEqual(['no_opinion', ['no_matching_rule'], 'default', 'hook']);
  });

  it('reads the action from stdin with -, and svc.yml from --config', async () => {
    const dir = await workspace();
    const result = await runCli(['policy', 'simulate', '-', '--config', join(dir, 'svc.yml'), '--json'], { input: JSON.stringify(chatAction('ops')) });
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as SimulationJson).decision).toBe('allow');
  });

  it('counts budgets from --ledger at --at', async () => {
    const dir = await workspace();
    const ledgerPath = join(dir, 'ledger.jsonl');
    const start = Date.parse('2026-11-21T10:00:00.000Z');
    let clock = start;
    const writer = await openLedger(ledgerPath, { now: () => clock });
    for (const index of [1, 2]) {
      clock = start + index * 60_000;
      const action = chatAction('eng', 'org:acme');
      const actionId = `act_${index}`;
      const events: LedgerEvent[] = [
        { type: 'action.received', stream: `action:${actionId}`, data: { actionId, source: 'proxy', action, actionHash: hashCanonical(action), payloadHash: hashCanonical(action.capability.payload) } },
        { type: 'policy.decided', stream: `action:${actionId}`, data: { actionId, decision: 'allow', reasons: ['rule_allow'], ruleId: 'chat-allowlisted-channels', policyHash: hashCanonical({}) } },
      ];
      await writer.appendBatch(events);
    }
    await writer.close();

    const within = await runCli(['policy', 'simulate', 'eng.json', '--ledger', ledgerPath, '--at', '2026-11-21T10:30:00Z'], { cwd: dir });
    expect(within.code).toBe(0);
    expect(within.stdout).toContain('decision     deny\nreasons      budget_exceeded\nrule         chat-per-agent\n');
    expect(within.stdout).toContain('explanation  denied by budget chat-per-agent: agent:deployer already has 2 allowed chat.message.send actions in the last 1h, and the budget allows 2 (budget_exceeded)');
    expect(within.stdout).toContain('  EXHAUSTED    chat-per-agent             2 of 2 allowed in the last 1h');
    expect(within.stdout).not.toContain('counted as 0');

    const later = JSON.parse((await runCli(['policy', 'simulate', 'eng.json', '--ledger', ledgerPath, '--at', '2026-11-21T11:01:30Z', '--json'], { cwd: dir })).stdout) as SimulationJson;
    expect([later.decision, later.budgetsCounted, later.trace.at(-1)?.budget]).toEqual(['allow', 'ledger', { count: 1, max: 2, window: '1h' }]);
  });

  it('an invalid action lists its issues and exits 2', async () => {
    const dir = await workspace();
    await writeFile(join(dir, 'bad.json'), JSON.stringify({ ...chatAction('eng'), capability: { tool: 'Chat', resource: 'eng', payload: {} }, extra: 1 }));
    const result = await runCli(['policy', 'simulate', 'bad.json'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('svc: bad.json is not a valid svc.action.v0 action [schema_invalid]\n');
    expect(result.stderr).toContain('  capability.tool: expected a dotted tool name <area>.<resource>.<verb>, for example chat.message.send\n');
    expect(result.stderr).toContain('  capability.resource: expected <kind>:<name>, for example channel:eng\n');

    const json = await runCli(['policy', 'simulate', 'bad.json', '--json'], { cwd: dir });
    expect(json.code).toBe(2);
    const body = JSON.parse(json.stdout) as { error: { code: string; issues: { path: string }[] } };
    expect(body.error.code).toBe('schema_invalid');
    expect(body.error.issues.map((issue) => issue.path)).toEqual(expect.arrayContaining(['capability.tool', 'capability.resource']));
  });

  it('usage, JSON and config errors exit 2 with one line and no stack trace', async () => {
    const dir = await workspace();
    await writeFile(join(dir, 'broken.json'), '{ "schemaVersion": ');
    const notJson = await runCli(['policy', 'simulate', 'broken.json'], { cwd: dir });
    expect([notJson.code, notJson.stderr]).toEqual([2, expect.stringMatching(/^svc: broken\.json is not JSON: .* \[json_invalid\]\n$/)]);

    const missing = await runCli(['policy', 'simulate', 'nothing.json'], { cwd: dir });
    expect([missing.code, missing.stderr]).toEqual([2, 'svc: nothing.json does not exist [action_unreadable]\n']);

    const mode = await runCli(['policy', 'simulate', 'eng.json', '--mode', 'sometimes'], { cwd: dir });
    expect(mode.code).toBe(2);
    expect(mode.stderr).toContain("argument 'sometimes' is invalid. Allowed choices are enforce, hook.");

    const at = await runCli(['policy', 'simulate', 'eng.json', '--at', 'yesterday'], { cwd: dir });
    expect([at.code, at.stderr]).toEqual([2, 'svc: --at yesterday is not an RFC 3339 time such as 2026-11-21T10:00:00Z [usage]\n']);

    const badPolicy = await workspace(SVC_YML.replace('{ in: [eng, ops, deploys] }', '{ in: [eng], glob: "o*" }'));
    const invalid = await runCli(['policy', 'simulate', 'eng.json'], { cwd: badPolicy });
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toBe('svc: svc.yml:9:20: policy.rules.0.when.payload.channel: a predicate object takes exactly one operator, found in and glob; to require all of them write a list: [{ in: ... }, { glob: ... }] [config_invalid]\n');

    const noLedger = await runCli(['policy', 'simulate', 'eng.json', '--ledger', 'absent.jsonl'], { cwd: dir });
    expect([noLedger.code, noLedger.stderr]).toEqual([2, 'svc: absent.jsonl does not exist; name an existing ledger with --ledger, or leave it out to count budgets as 0 [ledger_missing]\n']);
  });

  it('--help explains the output and the exit status, with examples', async () => {
    const help = await runCli(['policy', 'simulate', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit status: 0 when the action could be evaluated, whatever the decision');
    expect(help.stdout).toContain('svc policy simulate action.json --mode hook --json');
  });
});
