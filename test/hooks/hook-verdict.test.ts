import { describe, expect, it } from 'vitest';
import { promptMentions } from '../../src/hooks/hook-actions.js';
import { combineDecisions, effectiveDecision, hookVerdict, type ActionResult } from '../../src/hooks/hook-verdict.js';

let seq = 0;
function result(decision: ActionResult['decision'], extra: Partial<ActionResult> = {}): ActionResult {
  seq += 1;
  return {
    label: `action ${seq}`,
    decision,
    status: 'decided',
    reasons: [decision === 'deny' ? 'protected_path_read' : decision === 'step_up' ? 'shell_dynamic_path' : decision === 'allow' ? 'rule_allow' : 'no_matching_rule'],
    explanation: `explained ${seq}`,
    passIssued: decision === 'allow',
    actionId: `act_${seq}`,
    payloadHash: `sha256:${'0'.repeat(64)}`,
    ledger: { seq, hash: `sha256:${'1'.repeat(64)}` },
    ...extra,
  };
}

describe('combining action decisions into one verdict', () => {
  it('deny beats step_up beats allow; allow only when every action is allowed; otherwise no opinion', () => {
    expect(combineDecisions([result('allow'), result('step_up'), result('deny')])).toBe('deny');
    expect(combineDecisions([result('allow'), result('step_up', { status: 'pending_approval' })])).toBe('step_up');
    expect(combineDecisions([result('allow'), result('allow')])).toBe('allow');
    expect(combineDecisions([result('allow'), result('no_opinion')])).toBe('no_opinion');
    expect(combineDecisions([])).toBe('no_opinion');
  });

  it('a step_up whose approval issued a pass is an allow; a blocked approval or an allow without a pass is a deny', () => {
    expect(effectiveDecision(result('step_up', { passIssued: true }))).toBe('allow');
    expect(effectiveDecision(result('step_up', { status: 'blocked' }))).toBe('deny');
    expect(effectiveDecision(result('allow', { passIssued: false }))).toBe('deny');
  });

  it('a step_up names every approval to grant with the command to run, or asks when configured', () => {
    const pending = [result('step_up', { status: 'pending_approval', approval: { approvalId: 'apr_a', status: 'pending' } }), result('step_up', { status: 'pending_approval', approval: { approvalId: 'apr_b', status: 'pending' } })];
    const denied = hookVerdict(pending, { stepUp: 'deny', subject: 'this command' });
    expect(denied.decision).toBe('step_up');
    expect(denied.verdict).toMatchObject({ decision: 'deny' });
    expect(denied.verdict.decision !== 'no_opinion' && denied.verdict.reason).toContain('svc approvals approve apr_a && svc approvals approve apr_b');
    expect(hookVerdict(pending, { stepUp: 'ask', subject: 'this command' }).verdict).toMatchObject({ decision: 'ask' });
  });

  it('a deny explains each denied action with its reasons and the ledger seqs', () => {
    const { verdict } = hookVerdict([result('no_opinion'), result('deny')], { stepUp: 'deny', subject: 'this command' });
    expect(verdict.decision).toBe('deny');
    expect(verdict.decision !== 'no_opinion' && verdict.reason).toMatch(/svc denied this command\. action \d+: explained \d+ \[protected_path_read\].*svc ledger seq \d+/);
  });
});

describe('prompt @mentions', () => {
  it('finds @paths, quoted ones included, and ignores e-mail addresses and trailing punctuation', () => {
    expect(promptMentions('summarize @.env, then @"my notes.txt" and mail dev@example.com about @src/app.ts.')).toEqual(['.env', 'my notes.txt', 'src/app.ts']);
    expect(promptMentions('no mentions here')).toEqual([]);
    expect(promptMentions('list @. please')).toEqual(['.']);
  });
});
