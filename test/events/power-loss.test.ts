/**
 * Power-loss simulation: run a workload through a recording LedgerFs, then for every prefix of the
 * operation log compute the disk states a power failure at that point may leave (see the model in
 * test/support/recording-fs.ts), materialize each distinct state in a fresh directory and open it
 * with LedgerWriter.open. Every state the model allows must open, keep every record acknowledged
 * before the power failed (same leaf hash), hold nothing but records the writer wrote, and scan
 * valid; a second reopening must then change nothing. The model includes page-level outcomes
 * (pages of the unsynced writes persisted independently), and the workload keeps two commits in
 * flight, each several pages long, so a hole inside the first batch with the second one persisted
 * after it is among the states. Negative controls drop the directory fsync after the genesis, or
 * an fdatasync before an acknowledgement, and must find a state that loses an acknowledged record.
 *
 * SVC_POWER_LOSS_SEED=<n> changes the sampled byte offsets and page subsets;
 * SVC_POWER_LOSS_PAGE_SUBSETS=<n> the page subsets drawn per crash point (default 3; four times
 * as many for the two-commit workload).
 * SVC_POWER_LOSS_LARGE_BATCH=1 adds a group commit larger than 1 MiB to the workload (see the
 * note at LARGE_BATCH).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LedgerEvent } from '../../src/events/catalogue.js';
import { nodeLedgerFs, type LedgerFs } from '../../src/events/ledger-fs.js';
import { scanLedger } from '../../src/events/ledger-scan.js';
import { LedgerWriter, type Receipt } from '../../src/events/ledger-writer.js';
import { allowFlow, denyFlow, stepUpFlow } from '../../scripts/sample-flows.js';
import { flowContext, ledgerKey, tempDir } from '../support/ledger.js';
import { materialize, PowerLossModel, recordingFs, stateKey, type CrashPoint, type CrashState, type FsLogEntry } from '../support/recording-fs.js';

const SEED = Number(process.env.SVC_POWER_LOSS_SEED ?? 1729);
const PAGE_SUBSETS = Number(process.env.SVC_POWER_LOSS_PAGE_SUBSETS ?? 3);
/** The two-commit workload touches few pages, so its sweep can draw nearly all their subsets. */
const OVERLAP_PAGE_SUBSETS = 4 * PAGE_SUBSETS;
const ORIGIN = 'svc.test/org:acme/power-loss';
/**
 * Opt-in: a batch of two ~600 KB records. A zero-filled tail longer than the 1 MiB line limit is
 * then reported as corruption instead of a torn tail (see the report that came with this suite).
 */
const LARGE_BATCH = process.env.SVC_POWER_LOSS_LARGE_BATCH === '1';
const LEDGER = join('.svc', 'ledger.jsonl');
const QUARANTINE = join('.svc', 'quarantine');

function leafHash(line: Buffer): string {
  return `sha256:${createHash('sha256').update(Buffer.from([0])).update(line).digest('hex')}`;
}

function splitLines(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (let newline = bytes.indexOf(10); newline !== -1; newline = bytes.indexOf(10, start)) {
    lines.push(bytes.subarray(start, newline));
    start = newline + 1;
  }
  return lines;
}

function parsed(line: Buffer): { type?: string; seq?: number } | undefined {
  try {
    return JSON.parse(line.toString('utf8')) as { type?: string; seq?: number };
  } catch {
    return undefined;
  }
}

function typeOf(line: Buffer): string | undefined {
  return parsed(line)?.type;
}

/** Yields to the event loop until `condition` holds. */
async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; !condition(); turn += 1) {
    if (turn > 10_000) throw new Error('workload: the writer never got there');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

interface Workload {
  root: string;
  path: string;
  log: FsLogEntry[];
  /** Every record the workload ever wrote, by seq (the final file holds them all). */
  records: Buffer[];
  acknowledged: number;
}

/**
 * A fresh ledger (directory creation, genesis, directory sync), single appends, concurrent appends
 * that group-commit, whole flows as batches, in-band checkpoints every 7 records with their
 * sidecar writes, a clean close; then a torn tail left behind by an earlier crash, a reopen that
 * quarantines and recovers it, more appends and a second close.
 */
async function runWorkload(): Promise<Workload> {
  const root = await tempDir('svc-power-loss-');
  const path = join(root, LEDGER);
  const fs = recordingFs();
  const context = flowContext();
  let acknowledged = 0;
  const ack = (receipt: Receipt): void => {
    acknowledged += 1;
    fs.ack(receipt.seq, receipt.hash);
  };
  const single = (writer: LedgerWriter, id: string): Promise<void> => writer.append(denyFlow(context, id)[0] as LedgerEvent).then(ack);
  const batch = (writer: LedgerWriter, events: LedgerEvent[]): Promise<void> => writer.appendBatch(events).then((receipts) => receipts.forEach(ack));
  const open = () => LedgerWriter.open({ path, key: ledgerKey, origin: ORIGIN, checkpointEveryRecords: 7, checkpointEveryMs: 0, fs });

  const first = await open();
  await single(first, 'act_pl_1');
  await Promise.all([single(first, 'act_pl_2'), single(first, 'act_pl_3'), single(first, 'act_pl_4')]);
  await batch(first, allowFlow(context, 'act_pl_allow', first.size));
  await Promise.all([batch(first, denyFlow(context, 'act_pl_deny')), single(first, 'act_pl_5')]);
  await batch(first, stepUpFlow(context, { requestActionId: 'act_pl_ask', approvalId: 'apr_pl_1', executeActionId: 'act_pl_exec' }, first.size));
  if (LARGE_BATCH) {
    const big = 'x'.repeat(600_000);
    // The first append starts a commit; the two big ones queue behind it and go out as one write.
    await Promise.all([
      single(first, 'act_pl_small'),
      first.append(allowFlow(context, 'act_pl_big1', 0, big)[0] as LedgerEvent).then(ack),
      first.append(allowFlow(context, 'act_pl_big2', 0, big)[0] as LedgerEvent).then(ack),
    ]);
  }
  await Promise.all([single(first, 'act_pl_6'), batch(first, allowFlow(context, 'act_pl_allow2', first.size)), single(first, 'act_pl_7')]);
  await first.close();

  // An append torn by an earlier crash, left on disk (written through the recording fs so the
  // model knows the bytes; synced, since it is the starting state of the reopen).
  const fd = await fs.open(path, 'r+');
  const tornAt = (await readFile(path)).length;
  await fs.write(fd, Buffer.from('{"data":{"action":{"actor":{"agentId":"agent:deployer"'), tornAt);
  await fs.fsync(fd);
  await fs.close(fd);

  const second = await open();
  await single(second, 'act_pl_8');
  await Promise.all([batch(second, stepUpFlow(context, { requestActionId: 'act_pl_ask2', approvalId: 'apr_pl_2', executeActionId: 'act_pl_tamper' }, second.size, 'Also wire $9,000.')), single(second, 'act_pl_9')]);
  await second.close();

  const records = splitLines(await readFile(path));
  expect((await scanLedger(path)).kind).toBe('valid');
  expect(records.some((line) => typeOf(line) === 'ledger.recovered')).toBe(true);
  return { root, path, log: fs.log, records, acknowledged };
}

interface OverlapWorkload extends Workload {
  /** Where the two batches in flight were written: A at [a, b), B (`bBytes`) at [b, end). */
  batches: { a: number; b: number; end: number; bBytes: Buffer };
}

/**
 * Two commits in flight, as on a slow disk: a fresh ledger, a few appends, then batch A (a step-up
 * and an allow flow, about 10 KB, so three pages or more) is written and its fdatasync held; batch B is written
 * behind it; then A's sync completes and A is acknowledged while B's sync still runs; then B's.
 * A power loss meanwhile can lose any page of A and B in any combination, among them a page in
 * the middle of A with B persisted after it.
 */
async function runOverlapWorkload(): Promise<OverlapWorkload> {
  const root = await tempDir('svc-power-loss-overlap-');
  const path = join(root, LEDGER);
  let holding = false;
  const held: Array<() => void> = [];
  const fs = recordingFs({
    ...nodeLedgerFs,
    async fdatasync(fd) {
      if (holding) await new Promise<void>((resolve) => held.push(resolve));
      return nodeLedgerFs.fdatasync(fd);
    },
  } satisfies LedgerFs);
  const context = flowContext();
  let acknowledged = 0;
  const batch = (writer: LedgerWriter, events: LedgerEvent[]): Promise<void> =>
    writer.appendBatch(events).then((receipts) => {
      acknowledged += receipts.length;
      receipts.forEach((receipt) => fs.ack(receipt.seq, receipt.hash));
    });
  const ledgerWrites = (): Array<Extract<FsLogEntry, { op: 'write' }>> => fs.log.filter((entry): entry is Extract<FsLogEntry, { op: 'write' }> => entry.op === 'write' && entry.path === path);
  const writer = await LedgerWriter.open({ path, key: ledgerKey, origin: ORIGIN, checkpointEveryRecords: 7, checkpointEveryMs: 0, fs });
  await batch(writer, denyFlow(context, 'act_ov_1'));
  await batch(writer, allowFlow(context, 'act_ov_2', writer.size));
  holding = true;
  const batchA = batch(writer, [...stepUpFlow(context, { requestActionId: 'act_ov_3', approvalId: 'apr_ov_1', executeActionId: 'act_ov_4' }, writer.size), ...allowFlow(context, 'act_ov_6', writer.size + 8)]);
  await until(() => held.length === 1);
  const batchB = batch(writer, denyFlow(context, 'act_ov_5'));
  await until(() => held.length === 2);
  holding = false;
  (held.shift() as () => void)();
  await batchA;
  (held.shift() as () => void)();
  await batchB;
  await writer.close();
  const [a, b] = ledgerWrites().slice(-3, -1) as [Extract<FsLogEntry, { op: 'write' }>, Extract<FsLogEntry, { op: 'write' }>];
  expect(b.position).toBe(a.position + a.bytes.length);
  const records = splitLines(await readFile(path));
  expect((await scanLedger(path)).kind).toBe('valid');
  return { root, path, log: fs.log, records, acknowledged, batches: { a: a.position, b: b.position, end: b.position + b.bytes.length, bBytes: b.bytes } };
}

/** Every acknowledgement follows a completed sync of the ledger that started after the write holding the acknowledged record. */
function expectAcksAfterSyncs(log: readonly FsLogEntry[], path: string): void {
  const writeOfSeq = new Map<number, number>();
  let durableBefore = -1;
  log.forEach((entry, index) => {
    if (entry.op === 'write' && entry.path === path) {
      for (const line of splitLines(entry.bytes)) {
        const seq = parsed(line)?.seq;
        if (seq !== undefined) writeOfSeq.set(seq, index);
      }
    }
    if ((entry.op === 'fdatasync' || entry.op === 'fsync') && entry.path === path) durableBefore = Math.max(durableBefore, entry.since);
    if (entry.op === 'ack') expect(writeOfSeq.get(entry.seq) ?? Infinity, `ack of seq ${entry.seq} at log entry ${index}`).toBeLessThan(durableBefore);
  });
}

/** The log entry of a ledger fdatasync during which another ledger write happened (two commits in flight), or -1. */
function overlappedSync(log: readonly FsLogEntry[], path: string): number {
  return log.findIndex((entry, index) => entry.op === 'fdatasync' && entry.path === path && log.slice(entry.since, index).some((inner) => inner.op === 'write' && inner.path === path));
}

interface Outcome {
  violation?: string;
  /**
   * The state ended in damage the open quarantined and recorded as `ledger.recovered`: the last
   * line `cut` or `zero-filled`, or zeros before the end followed by intact records (`zeros then
   * records`) or by nothing but zeros and a cut (`zeros to the end`).
   */
  tornRecovered?: string;
  /** Where the quarantined bytes started. */
  tornOffset?: number;
  ledgerMissing: boolean;
}

async function quarantined(dir: string): Promise<string[]> {
  return (await readdir(join(dir, QUARANTINE)).catch(() => [])).sort();
}

/** What a reopening must leave alone: the ledger, its sidecar and the quarantine. */
async function snapshot(dir: string): Promise<string> {
  const path = join(dir, LEDGER);
  const sidecar = await readFile(`${path}.checkpoint`).catch(() => Buffer.alloc(0));
  return createHash('sha256').update(await readFile(path)).update('\0').update(sidecar).update('\0').update((await quarantined(dir)).join('\0')).digest('hex');
}

function kindOf(reason: string, bytes: Buffer): string {
  if (reason.startsWith('zero-filled bytes before the end')) return reason.includes('intact record') ? 'zeros then records' : 'zeros to the end';
  return bytes.includes(0) ? 'zero-filled' : 'cut';
}

/** Opens one crash state with the real file system and checks it. */
async function checkState(state: CrashState, acks: CrashPoint['acks'], records: readonly Buffer[]): Promise<Outcome> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-power-state-'));
  try {
    await materialize(state, dir);
    const path = join(dir, LEDGER);
    const ledgerMissing = !state.entries.has(LEDGER);
    const before = await scanLedger(path);
    const quarantinedBefore = await quarantined(dir);
    const open = () => LedgerWriter.open({ path, key: ledgerKey, origin: ORIGIN, checkpointEveryMs: 0 });
    let writer: LedgerWriter;
    try {
      writer = await open();
    } catch (error) {
      return { violation: `LedgerWriter.open failed: ${(error as Error).message}`, ledgerMissing };
    }
    const lines = splitLines(await readFile(path));
    await writer.close();
    for (const { seq, hash } of acks) {
      const line = lines[seq];
      if (line === undefined || leafHash(line) !== hash) return { violation: `acknowledged record seq ${seq} (${hash}) is ${line === undefined ? 'missing' : `now ${leafHash(line)}`}`, ledgerMissing };
    }
    // Nothing but the writer's own records: the records the crash state held are exactly the
    // first records the workload wrote, byte for byte, and all that follows them is what the
    // opening wrote itself (a new genesis, ledger.recovered, then checkpoints).
    const kept = before.kind === 'valid' ? before.checker.size : 0;
    for (let seq = 0; seq < kept; seq += 1) {
      if (!(lines[seq] as Buffer).equals(records[seq] as Buffer)) return { violation: `seq ${seq} after recovery is not the record the workload wrote`, ledgerMissing };
    }
    const torn = before.kind === 'valid' ? before.tornTail : undefined;
    const own = [...(kept === 0 ? ['ledger.genesis'] : []), ...(torn ? ['ledger.recovered'] : [])];
    const written = lines.slice(kept).map(typeOf);
    if (written.slice(0, own.length).join() !== own.join() || written.slice(own.length).some((type) => type !== 'ledger.checkpoint')) {
      return { violation: `after the ${kept} records kept the ledger holds ${written.join(', ')}, not only what the opening wrote (${own.join(', ')}, checkpoints)`, ledgerMissing };
    }
    let recovered: Pick<Outcome, 'tornRecovered' | 'tornOffset'> = {};
    if (torn) {
      // The quarantine holds exactly the bytes cut off, so nothing was lost without a trace.
      const added = (await quarantined(dir)).filter((name) => !quarantinedBefore.includes(name));
      const cutOff = (state.entries.get(LEDGER) as Buffer).subarray(torn.offset);
      if (added.length !== 1 || !(await readFile(join(dir, QUARANTINE, added[0] as string))).equals(cutOff)) return { violation: `the ${cutOff.length} bytes cut at byte ${torn.offset} are not the one new quarantine file (${added.join(', ')})`, ledgerMissing };
      recovered = { tornRecovered: kindOf(torn.reason, torn.bytes), tornOffset: torn.offset };
    }
    const after = await scanLedger(path);
    if (after.kind !== 'valid') return { violation: `the recovered ledger does not scan: ${JSON.stringify(after.kind === 'corrupt' ? after.defect : after)}`, ledgerMissing };
    if (after.tornTail) return { violation: `the recovered ledger still has a torn tail at byte ${after.tornTail.offset}`, ledgerMissing };
    const settled = await snapshot(dir);
    try {
      await (await open()).close();
    } catch (error) {
      return { violation: `the second reopening failed: ${(error as Error).message}`, ledgerMissing };
    }
    if ((await snapshot(dir)) !== settled) return { violation: 'the second reopening changed the ledger, its sidecar or the quarantine', ledgerMissing };
    return { ...recovered, ledgerMissing };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface Sweep {
  crashPoints: number;
  statesGenerated: number;
  distinctStates: number;
  violations: string[];
  tornRecovered: Record<string, number>;
  /** (crash point, state) pairs with no ledger file, before and after the first acknowledgement. */
  missingBeforeFirstAck: number;
  missingAfterAck: number;
  /** States the caller singled out (`notable`) that recovered without a violation. */
  notable: number;
  elapsedMs: number;
}

interface SweepOptions {
  /** Log entries the writer is taken never to have performed (negative controls). */
  ignore?: ReadonlySet<number>;
  stopAtFirstViolation?: boolean;
  /** Only the states this accepts are checked. */
  only?: (state: CrashState) => boolean;
  notable?: (state: CrashState, outcome: Outcome) => boolean;
  /** Page subsets per crash point (default PAGE_SUBSETS). */
  pageSubsets?: number;
}

/**
 * Checks every distinct state of every crash point. A state reachable from several crash points is
 * checked once, against the most acknowledgements any of them had (acks only grow with the log).
 */
async function sweep(workload: Workload, options: SweepOptions = {}): Promise<Sweep> {
  const started = performance.now();
  const only = options.only ?? (() => true);
  const model = new PowerLossModel(workload.log, { root: workload.root, ignore: options.ignore ?? new Set(), seed: SEED, pageSubsets: options.pageSubsets ?? PAGE_SUBSETS });
  const distinct = new Map<string, { state: CrashState; point: CrashPoint }>();
  const result: Sweep = { crashPoints: 0, statesGenerated: 0, distinctStates: 0, violations: [], tornRecovered: {}, missingBeforeFirstAck: 0, missingAfterAck: 0, notable: 0, elapsedMs: 0 };
  for (let index = 0; index <= workload.log.length; index += 1) {
    const point = model.crashPoint(index);
    result.crashPoints += 1;
    for (const state of point.states.filter(only)) {
      result.statesGenerated += 1;
      if (!state.entries.has(LEDGER)) {
        if (point.acks.length === 0) result.missingBeforeFirstAck += 1;
        else result.missingAfterAck += 1;
      }
      distinct.set(stateKey(state), { state, point });
    }
  }
  result.distinctStates = distinct.size;
  for (const { state, point } of distinct.values()) {
    const outcome = await checkState(state, point.acks, workload.records);
    if (outcome.violation !== undefined) {
      const entry = workload.log[point.index - 1];
      result.violations.push(`crash after log entry ${point.index} (${entry ? entry.op : 'start'}), ${point.acks.length} acks, state [${state.description}]: ${outcome.violation}`);
      if (options.stopAtFirstViolation) break;
    } else if (options.notable?.(state, outcome)) {
      result.notable += 1;
    }
    if (outcome.tornRecovered !== undefined) result.tornRecovered[outcome.tornRecovered] = (result.tornRecovered[outcome.tornRecovered] ?? 0) + 1;
  }
  result.elapsedMs = Math.round(performance.now() - started);
  return result;
}

describe('ledger writer under simulated power loss', () => {
  let workload: Workload | undefined;
  let overlap: OverlapWorkload | undefined;
  const getWorkload = async (): Promise<Workload> => (workload ??= await runWorkload());
  const getOverlap = async (): Promise<OverlapWorkload> => (overlap ??= await runOverlapWorkload());
  const pagesOnly = (state: CrashState): boolean => state.description.includes('unsynced pages');
  afterAll(async () => {
    for (const done of [workload, overlap]) if (done) await rm(done.root, { recursive: true, force: true });
  });

  it('records the operations the writer performs, in order', async () => {
    const { log, path, acknowledged } = await getWorkload();
    const ops = log.map((entry) => entry.op);
    expect(ops.filter((op) => op === 'ack')).toHaveLength(acknowledged);
    // Creation: the directory is made durable, the ledger is created, the genesis synced, then
    // the new directory entry synced, all before the first acknowledgement.
    const firstAck = ops.indexOf('ack');
    const created = log.findIndex((entry) => entry.op === 'open' && entry.path === path);
    const genesisSync = log.findIndex((entry) => entry.op === 'fdatasync' && entry.path === path);
    const entrySync = log.findIndex((entry, index) => index > genesisSync && entry.op === 'fsyncDirectory' && entry.path === dirname(path));
    expect(log.findIndex((entry) => entry.op === 'fsyncDirectory' && entry.path === dirname(dirname(path)))).toBeLessThan(created);
    expect(created).toBeGreaterThanOrEqual(0);
    expect(genesisSync).toBeGreaterThan(created);
    expect(entrySync).toBeGreaterThan(genesisSync);
    expect(entrySync).toBeLessThan(firstAck);
    // Every acknowledgement follows a completed fdatasync of the ledger that started after the
    // acknowledged record's write.
    expectAcksAfterSyncs(log, path);
    // Sidecar writes happened (checkpoints every 7 records) and went temp file, fsync, rename, directory fsync.
    const renames = log.flatMap((entry, index) => (entry.op === 'rename' && entry.to === `${path}.checkpoint` ? [index] : []));
    expect(renames.length).toBeGreaterThan(2);
    for (const index of renames) {
      const rename = log[index] as Extract<FsLogEntry, { op: 'rename' }>;
      expect(log.slice(0, index).some((entry) => entry.op === 'fsync' && entry.path === rename.from)).toBe(true);
      expect(log.slice(index + 1).some((entry) => entry.op === 'fsyncDirectory' && entry.path === dirname(path))).toBe(true);
    }
  });

  it('keeps every acknowledged record in every state a power loss can leave', async () => {
    const current = await getWorkload();
    const result = await sweep(current);
    console.log(`[power-loss] seed ${SEED}: ${current.log.length} log entries, ${current.acknowledged} acks, ${current.records.length} records; ${JSON.stringify({ ...result, violations: result.violations.length })}`);
    expect(result.violations.slice(0, 5), `seed ${SEED}: ${result.violations.length} violations`).toEqual([]);
    // The model is not vacuous: it produced torn tails of every kind, among them a lost page inside
    // a batch with later records of that batch persisted after it, and a ledger that is not there
    // yet; and it never produced a missing ledger once something was acknowledged.
    expect(result.tornRecovered.cut ?? 0).toBeGreaterThan(0);
    expect(result.tornRecovered['zero-filled'] ?? 0).toBeGreaterThan(0);
    expect(result.tornRecovered['zeros then records'] ?? 0).toBeGreaterThan(0);
    expect(result.missingBeforeFirstAck).toBeGreaterThan(0);
    expect(result.missingAfterAck).toBe(0);
    expect(result.distinctStates).toBeGreaterThan(current.log.length);
  });

  it('negative control: without the directory fsync after the genesis, some state loses an acknowledged record', async () => {
    const current = await getWorkload();
    const path = current.path;
    const genesisSync = current.log.findIndex((entry) => entry.op === 'fdatasync' && entry.path === path);
    const dropped = current.log.findIndex((entry, index) => index > genesisSync && entry.op === 'fsyncDirectory' && entry.path === dirname(path));
    expect(dropped).toBeGreaterThan(genesisSync);
    const result = await sweep(current, { ignore: new Set([dropped]), stopAtFirstViolation: true });
    console.log(`[power-loss] negative control: dropped log entry ${dropped}; ${JSON.stringify(result)}`);
    expect(result.missingAfterAck).toBeGreaterThan(0);
    expect(result.violations).toHaveLength(1);
    expect(result.violations[0]).toMatch(/acknowledged record seq \d+ .* is (missing|now sha256:)/);
  });

  it('negative control: without the fdatasync before an acknowledgement, some state loses that record', async () => {
    const current = await getWorkload();
    const firstAck = current.log.findIndex((entry) => entry.op === 'ack');
    const acked = current.log[firstAck] as Extract<FsLogEntry, { op: 'ack' }>;
    const dropped = current.log.slice(0, firstAck).findLastIndex((entry) => entry.op === 'fdatasync' && entry.path === current.path);
    expect(dropped).toBeGreaterThan(0);
    const result = await sweep(current, { ignore: new Set([dropped]), stopAtFirstViolation: true });
    console.log(`[power-loss] negative control: dropped log entry ${dropped}; ${JSON.stringify(result)}`);
    expect(result.violations).toHaveLength(1);
    expect(result.violations[0]).toContain(`acknowledged record seq ${acked.seq} (${acked.hash}) is`);
  });

  it('records two commits in flight: a ledger write while the previous commit syncs, acknowledged only after its own sync', async () => {
    const { log, path, acknowledged } = await getOverlap();
    expect(log.filter((entry) => entry.op === 'ack')).toHaveLength(acknowledged);
    expect(overlappedSync(log, path)).toBeGreaterThan(0);
    expectAcksAfterSyncs(log, path);
  });

  it('keeps every acknowledged record when a power loss hits two commits in flight, page by page', async () => {
    const current = await getOverlap();
    const { a, b, end, bBytes } = current.batches;
    // A lost page inside batch A with batch B persisted whole after it: the shape that used to make the ledger refuse to open.
    const holeBeforeB = (state: CrashState, outcome: Outcome): boolean => {
      const ledger = state.entries.get(LEDGER);
      return outcome.tornOffset !== undefined && outcome.tornOffset >= a && outcome.tornOffset < b && ledger instanceof Buffer && ledger.subarray(b, end).equals(bBytes);
    };
    const result = await sweep(current, { only: pagesOnly, notable: holeBeforeB, pageSubsets: OVERLAP_PAGE_SUBSETS });
    console.log(`[power-loss] two commits in flight, seed ${SEED}: ${current.log.length} log entries, batch A at [${a}, ${b}), B at [${b}, ${end}); ${JSON.stringify({ ...result, violations: result.violations.length })}`);
    expect(result.violations.slice(0, 5), `seed ${SEED}: ${result.violations.length} violations`).toEqual([]);
    expect(result.notable).toBeGreaterThan(0);
    expect(result.missingAfterAck).toBe(0);
  });

  it('negative control: without the fdatasync of the first of two commits in flight, some page-level state loses one of its acknowledged records', async () => {
    const current = await getOverlap();
    const dropped = overlappedSync(current.log, current.path);
    expect(dropped).toBeGreaterThan(0);
    const result = await sweep(current, { ignore: new Set([dropped]), stopAtFirstViolation: true, only: pagesOnly, pageSubsets: OVERLAP_PAGE_SUBSETS });
    console.log(`[power-loss] negative control: dropped log entry ${dropped}; ${JSON.stringify(result)}`);
    expect(result.violations).toHaveLength(1);
    expect(result.violations[0]).toMatch(/unsynced pages .*acknowledged record seq \d+ .* is (missing|now sha256:)/);
  });
});
