import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChainChecker, isDefect } from '../../src/events/chain-checker.js';
import type { LedgerRecord } from '../../src/events/catalogue.js';
import { readLines } from '../../src/events/line-reader.js';
import { RuntimeState } from '../../src/projections/runtime-state.js';
import { appendSampleFlows, openLedger, tempDir } from '../support/ledger.js';

const HOUR = 3_600_000;

async function sampleRecords(): Promise<LedgerRecord[]> {
  const path = join(await tempDir(), 'ledger.jsonl');
  const writer = await openLedger(path, { checkpointEveryRecords: 7 });
  await appendSampleFlows(writer, 3);
  await writer.close();
  const checker = new ChainChecker();
  const records: LedgerRecord[] = [];
  for await (const lines of readLines(path)) {
    for (const line of lines) {
      const checked = checker.check(line);
      if (isDefect(checked)) throw new Error(checked.message);
      records.push(checked.record);
    }
  }
  return records;
}

function fold(records: readonly LedgerRecord[], state = new RuntimeState(HOUR)): RuntimeState {
  for (const record of records) state.apply(record);
  return state;
}

describe('runtime state snapshot', () => {
  it('given any split of a ledger, when the first part is saved, restored from JSON and the rest folded on, then the state equals folding it whole', async () => {
    const records = await sampleRecords();
    const whole = fold(records);
    // Something to carry over: open approvals, pending passes and counted allows along the way.
    expect(whole.budgets.retained.timestamps).toBeGreaterThan(0);
    for (let split = 1; split < records.length; split += 1) {
      const saved = JSON.parse(JSON.stringify(fold(records.slice(0, split)).snapshot())) as unknown;
      const restored = RuntimeState.restore(saved, HOUR);
      expect(restored, `split at ${split}`).toBeDefined();
      const resumed = fold(records.slice(split), restored);
      expect(resumed, `split at ${split}`).toEqual(whole);
    }
  });

  it('given a snapshot in the middle of a step-up, when restored, then the open approval and its exact action are there', async () => {
    const records = await sampleRecords();
    const requested = records.findIndex((record) => record.type === 'approval.requested');
    const state = RuntimeState.restore(JSON.parse(JSON.stringify(fold(records.slice(0, requested + 1)).snapshot())), HOUR);
    const [open] = state?.openApprovals() ?? [];
    expect(open?.status).toBe('pending');
    expect(open?.action?.capability.tool).toBe('email.message.send');
  });

  it('refuses a snapshot of another version, or one whose budget counter kept a shorter window than the policy needs', async () => {
    const snapshot = fold(await sampleRecords()).snapshot();
    expect(RuntimeState.restore({ ...snapshot, format: 'svc.runtime-state.v0' }, HOUR)).toBeUndefined();
    expect(RuntimeState.restore(undefined, HOUR)).toBeUndefined();
    expect(RuntimeState.restore(snapshot, 2 * HOUR)).toBeUndefined();
    expect(RuntimeState.restore(snapshot, HOUR / 2)).toBeDefined();
    expect(RuntimeState.restore({ ...snapshot, usedPasses: 7 }, HOUR)).toBeUndefined();
  });
});
