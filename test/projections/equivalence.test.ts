import { describe, expect, it } from 'vitest';
import type { LedgerEvent, LedgerRecord } from '../../src/events/catalogue.js';
import { judgeExecution } from '../../src/projections/equivalence.js';
import { evolve, initialState } from '../../src/projections/state.js';
import { allowFlow, stepUpFlow } from '../../scripts/sample-flows.js';
import { flowContext } from '../support/ledger.js';

const context = flowContext();

/** Given events, when the last one (an execution) is judged, then the verdict. */
function judgeLast(events: LedgerEvent[]) {
  const state = initialState();
  const records = events.map((event, seq) => ({ v: 0, seq, ts: '2026-11-21T10:00:00.000Z', prevHash: `sha256:${'0'.repeat(64)}`, ...event }) as LedgerRecord);
  for (const record of records.slice(0, -1)) evolve(state, record);
  const last = records[records.length - 1] as LedgerRecord;
  if (last.type !== 'execution.completed' && last.type !== 'execution.blocked') throw new Error('last event must be an execution');
  return judgeExecution(state, last);
}

describe('judgeExecution', () => {
  it('given an allow with its pass, then the execution of the same payload is equivalent', () => {
    expect(judgeLast(allowFlow(context, 'act_1', 0)).status).toBe('equivalent');
  });

  it('given an approved step-up, then executing the exact payload is equivalent and an altered one is blocked', () => {
    expect(judgeLast(stepUpFlow(context, { requestActionId: 'act_q', approvalId: 'apr_1', executeActionId: 'act_x' }, 0)).status).toBe('equivalent');
    expect(judgeLast(stepUpFlow(context, { requestActionId: 'act_q', approvalId: 'apr_1', executeActionId: 'act_x' }, 0, 'altered')).status).toBe('blocked');
  });

  it('given no ActionPass, then an execution is violated', () => {
    const events = allowFlow(context, 'act_1', 0);
    events.splice(2, 1);
    expect(judgeLast(events)).toMatchObject({ status: 'violated', problem: expect.stringContaining('no ActionPass') });
  });

  it('given an executed hash that differs from the approved one, then the execution is violated', () => {
    const events = allowFlow(context, 'act_1', 0);
    const completed = events[3] as Extract<LedgerEvent, { type: 'execution.completed' }>;
    completed.data.executedPayloadHash = `sha256:${'e'.repeat(64)}`;
    expect(judgeLast(events)).toMatchObject({ status: 'violated', problem: expect.stringContaining('differs') });
  });

  it('given an approval already consumed by another action, then a second use is violated', () => {
    const first = stepUpFlow(context, { requestActionId: 'act_q', approvalId: 'apr_1', executeActionId: 'act_x' }, 0);
    const replayed = stepUpFlow(context, { requestActionId: 'act_q', approvalId: 'apr_1', executeActionId: 'act_y' }, 0).slice(4);
    expect(judgeLast([...first, ...replayed])).toMatchObject({ status: 'violated', problem: expect.stringContaining('already used by another action') });
  });
});
