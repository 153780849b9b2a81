import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCanonicalText } from '../../src/events/canonical.js';
import type { LedgerEvent } from '../../src/events/catalogue.js';
import type { CheckedRecord } from '../../src/events/chain-checker.js';
import { LedgerWriter } from '../../src/events/ledger-writer.js';
import { exportLedger } from '../../src/evidence/export-ledger.js';
import { runLedgerPass } from '../../src/evidence/ledger-pass.js';
import { digestReplayPass } from '../../src/evidence/replay-pass.js';
import { verifyExport } from '../../src/evidence/verify-export.js';
import { PROJECTION_FILES, Replay } from '../../src/projections/replay.js';
import { allowFlow, denyFlow, stepUpFlow } from '../../scripts/sample-flows.js';
import { flowContext, ledgerKey, tempDir } from '../support/ledger.js';

type Flow = 'allow' | 'deny' | 'approved' | 'tampered';

const context = flowContext();

function collectingSinks(): { sinks: Record<string, (line: string) => void>; output: Record<string, string> } {
  const output: Record<string, string> = Object.fromEntries(PROJECTION_FILES.map((file) => [file, '']));
  return { output, sinks: Object.fromEntries(PROJECTION_FILES.map((file) => [file, (line: string) => (output[file] += line)])) };
}

/** Writes the flows through a real writer, cutting the event stream into the given batch sizes. */
async function writeLedger(path: string, flows: Flow[], batchSizes: number[]): Promise<Record<string, string>> {
  const runtime = collectingSinks();
  const replay = new Replay(runtime.sinks);
  let tick = 0;
  const writer = await LedgerWriter.open({ path, key: ledgerKey, origin: 'svc.test/batching', checkpointEveryRecords: 9, checkpointEveryMs: 0, now: () => 1_790_000_000_000 + tick++, onDurable: (records) => replay.apply(records) });
  const events: LedgerEvent[] = [];
  // The claims' decisionSeq (third argument) plays no part in replay, so 0 stands in for it.
  flows.forEach((flow, index) => {
    if (flow === 'allow') events.push(...allowFlow(context, `act_a${index}`, 0));
    if (flow === 'deny') events.push(...denyFlow(context, `act_d${index}`));
    if (flow === 'approved') events.push(...stepUpFlow(context, { requestActionId: `act_q${index}`, approvalId: `apr_${index}`, executeActionId: `act_x${index}` }, 0));
    if (flow === 'tampered') events.push(...stepUpFlow(context, { requestActionId: `act_r${index}`, approvalId: `apr_t${index}`, executeActionId: `act_t${index}` }, 0, 'changed after approval'));
  });
  let next = 0;
  for (const size of batchSizes) {
    if (next >= events.length) break;
    await writer.appendBatch(events.slice(next, next + size));
    next += size;
  }
  if (next < events.length) await writer.appendBatch(events.slice(next));
  await writer.close();
  replay.finish();
  return runtime.output;
}

describe('replay is independent of batching', () => {
  it('same events in any batch split: identical ledger bytes, and identical projections at runtime, in export and in verify-export (at any read size)', async () => {
    const dir = await tempDir();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom<Flow>('allow', 'deny', 'approved', 'tampered'), { minLength: 1, maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 20 }),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 20 }),
        fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 20 }),
        // verify-export replays one batch per read: a read size from one byte up splits the same
        // ledger into batches of every size, lines cut anywhere.
        fc.integer({ min: 1, max: 4096 }),
        async (flows, splitA, splitB, replaySplit, chunkBytes) => {
          run += 1;
          const pathA = join(dir, `a${run}`, 'ledger.jsonl');
          const pathB = join(dir, `b${run}`, 'ledger.jsonl');
          const runtimeA = await writeLedger(pathA, flows, splitA);
          const runtimeB = await writeLedger(pathB, flows, splitB);
          expect(await readFile(pathA)).toEqual(await readFile(pathB));
          expect(runtimeA).toEqual(runtimeB);

          // Offline: the same reducers over the file, fed in yet another split.
          const records: CheckedRecord[] = [];
          await runLedgerPass(pathA, { onRecords: (batch) => records.push(...batch) });
          const offline = collectingSinks();
          const replay = new Replay(offline.sinks);
          let next = 0;
          for (const size of replaySplit) {
            replay.apply(records.slice(next, next + size));
            next += size;
          }
          replay.apply(records.slice(next));
          replay.finish();
          expect(offline.output).toEqual(runtimeA);
          // Views that write rows with JSON.stringify promise JCS; hold every row to it.
          for (const [file, text] of Object.entries(runtimeA)) {
            for (const line of text.split('\n').filter(Boolean)) expect(isCanonicalText(line, JSON.parse(line)), `${file}: ${line}`).toBe(true);
          }

          // Export writes the projections; verify-export replays and compares them byte for byte.
          const bundle = join(dir, `bundle${run}`);
          await exportLedger({ ledgerPath: pathA, outDir: bundle, key: ledgerKey });
          for (const file of PROJECTION_FILES) expect(await readFile(join(bundle, 'projections', file), 'utf8')).toBe(runtimeA[file]);
          const whole = await verifyExport(bundle, { pinnedKey: ledgerKey.publicKey });
          expect(whole.valid).toBe(true);

          // verify-export's own replay, read in chunks of `chunkBytes`: the same projection bytes
          // (by digest) and the same verdicts; and the whole verification reports the same.
          const digests = await digestReplayPass(pathA, { end: (await stat(pathA)).size, projections: PROJECTION_FILES, chunkBytes });
          expect(digests.digests).toEqual(Object.fromEntries(PROJECTION_FILES.map((file) => [file, createHash('sha256').update(runtimeA[file] as string).digest('hex')])));
          expect(digests.verdicts).toEqual(whole.equivalence);
          expect(await verifyExport(bundle, { pinnedKey: ledgerKey.publicKey, chunkBytes })).toEqual(whole);
        },
      ),
      { numRuns: 25, seed: 424242 },
    );
  });
});
