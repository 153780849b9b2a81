import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LedgerEvent } from '../src/events/catalogue.js';
import { hashCanonical } from '../src/events/canonical.js';
import { LedgerWriter } from '../src/events/ledger-writer.js';
import { exportLedger } from '../src/evidence/export-ledger.js';
import { allowFlow, denyFlow, stepUpFlow } from '../scripts/sample-flows.js';
import { BENCH_ORIGIN, benchFlowContext, fmtInt, fmtNum, now, seconds } from './lib.js';

/**
 * A large realistic ledger and its export bundle, generated once and cached under
 * `bench/out/fixtures/ledger-<records>/` (keyed by size and generator version).
 *
 * Flow mix per round, like a busy proxy: 6 allowed and executed chat messages, 2 denied ones,
 * 1 step-up approved and executed, 1 step-up whose altered payload is blocked (43 records).
 * Appends go through LedgerWriter.appendBatch in large batches with the default in-band
 * checkpoint every 1000 records, so the file is exactly what the writer produces.
 */

const GENERATOR_VERSION = 2;
const CHECKPOINT_EVERY = 1000; // the writer's default, mirrored to predict each flow's seqs
const BATCH_EVENTS = 20_000;

export interface Fixture {
  dir: string;
  ledgerPath: string;
  bundleDir: string;
  records: number;
  bytes: number;
  /** Seconds spent generating it in this run, 0 when it came from the cache. */
  generatedIn: number;
  exportedIn: number;
}

interface Meta {
  version: number;
  target: number;
  records: number;
  bytes: number;
}

export async function ensureFixture(outDir: string, targetRecords: number): Promise<Fixture> {
  const dir = join(outDir, 'fixtures', `ledger-${targetRecords}`);
  const ledgerPath = join(dir, 'ledger', 'ledger.jsonl');
  const bundleDir = join(dir, 'bundle');
  const metaPath = join(dir, 'meta.json');
  if (existsSync(metaPath)) {
    const meta = JSON.parse(await readFile(metaPath, 'utf8')) as Meta;
    if (meta.version === GENERATOR_VERSION && meta.target === targetRecords && existsSync(join(bundleDir, 'ledger.jsonl'))) {
      return { dir, ledgerPath, bundleDir, records: meta.records, bytes: meta.bytes, generatedIn: 0, exportedIn: 0 };
    }
  }
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'ledger'), { recursive: true });
  console.log(`  generating a ${fmtInt(targetRecords)}-record ledger (cached in ${dir}) ...`);
  const started = now();
  const records = await generateLedger(ledgerPath, targetRecords);
  const generatedIn = seconds(started);
  const bytes = (await stat(ledgerPath)).size;
  console.log(`  generated ${fmtInt(records)} records, ${fmtInt(bytes)} bytes in ${fmtNum(generatedIn, 1)} s; exporting ...`);
  const exportStart = now();
  await exportLedger({ ledgerPath, outDir: bundleDir, key: benchFlowContext().keys.pass });
  const exportedIn = seconds(exportStart);
  console.log(`  exported in ${fmtNum(exportedIn, 1)} s (${fmtInt(records / exportedIn)} records/s)`);
  const meta: Meta = { version: GENERATOR_VERSION, target: targetRecords, records, bytes };
  await writeFile(metaPath, `${JSON.stringify(meta)}\n`);
  return { dir, ledgerPath, bundleDir, records, bytes, generatedIn, exportedIn };
}

async function generateLedger(path: string, targetRecords: number): Promise<number> {
  const context = benchFlowContext();
  const writer = await LedgerWriter.open({ path, key: context.keys.pass, origin: BENCH_ORIGIN, checkpointEveryMs: 0, checkpointEveryRecords: CHECKPOINT_EVERY });
  // Predict the seqs the writer will give (it seals an in-band checkpoint before the event that
  // follows every CHECKPOINT_EVERY records), so ActionPass claims name their real decision seq.
  let nextSeq = writer.size;
  let sinceCheckpoint = writer.size;
  const reserve = (count: number): number[] => {
    const seqs: number[] = [];
    for (let i = 0; i < count; i += 1) {
      if (sinceCheckpoint >= CHECKPOINT_EVERY) {
        nextSeq += 1;
        sinceCheckpoint = 0;
      }
      seqs.push(nextSeq);
      nextSeq += 1;
      sinceCheckpoint += 1;
    }
    return seqs;
  };
  const seqAt = (seqs: number[], index: number): number => seqs[index] as number;

  let batch: LedgerEvent[] = [];
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const events = batch;
    batch = [];
    await writer.appendBatch(events);
  };
  const ROUND_RECORDS = 43;
  // Leave one record for the checkpoint that close() seals.
  const remaining = (): number => targetRecords - 1 - nextSeq;
  let round = 0;
  while (remaining() >= ROUND_RECORDS + 2 * Math.ceil(ROUND_RECORDS / CHECKPOINT_EVERY)) {
    for (let i = 0; i < 6; i += 1) {
      const seqs = reserve(4);
      batch.push(...allowFlow(context, `act_${round}_allow_${i}`, seqAt(seqs, 1) - 1, `deploy ${round}.${i} finished`));
    }
    for (let i = 0; i < 2; i += 1) {
      reserve(2);
      batch.push(...denyFlow(context, `act_${round}_deny_${i}`));
    }
    const approved = reserve(8);
    batch.push(...stepUpFlow(context, { requestActionId: `act_${round}_ask`, approvalId: `apr_${round}`, executeActionId: `act_${round}_exec` }, seqAt(approved, 5) - 5));
    const blocked = reserve(7);
    batch.push(...stepUpFlow(context, { requestActionId: `act_${round}_ask2`, approvalId: `apr2_${round}`, executeActionId: `act_${round}_tamper` }, seqAt(blocked, 5) - 5, 'Attached are the Q3 numbers. Also wire $9,000 to the account below.'));
    round += 1;
    if (batch.length >= BATCH_EVENTS) await flush();
  }
  // Top up to the exact size with single config.loaded records.
  let filler = 0;
  while (remaining() > 0) {
    reserve(1);
    batch.push({ type: 'config.loaded', stream: 'config', data: { configHash: hashCanonical({ filler }), policyHash: hashCanonical({ policy: 'sample' }) } });
    filler += 1;
  }
  await flush();
  if (writer.size !== nextSeq) console.log(`  warning: predicted ${nextSeq} records, the writer holds ${writer.size}`);
  await writer.close();
  return writer.size;
}
