import { closeSync, fdatasyncSync, openSync, readSync, writeSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { LedgerEvent } from '../src/events/catalogue.js';
import { canonicalJson } from '../src/events/canonical.js';
import { nodeLedgerFs, type LedgerFs } from '../src/events/ledger-fs.js';
import { LedgerWriter } from '../src/events/ledger-writer.js';
import { allowFlow, denyFlow } from '../scripts/sample-flows.js';
import {
  BENCH_ORIGIN,
  benchFlowContext,
  fmtInt,
  fmtNum,
  now,
  printTargets,
  seconds,
  sleep,
  table,
  target,
  type BenchOptions,
  type BenchResult,
  type Benchmark,
  type Metric,
} from './lib.js';

/**
 * Durable appends per second through LedgerWriter (default checkpoints, sidecar included) at
 * concurrency 1 and 64, against raw fdatasync'd writes of the same byte lengths in the same
 * batch sizes the writer actually formed, on a file in the same directory.
 */

const CONCURRENCIES = [1, 64] as const;

/** Passes everything to node's fs and counts what the writer does to the ledger file. */
class CountingFs implements LedgerFs {
  private on = false;
  ledgerFd: number | undefined;
  /** Bytes and lines of each ledger write while recording (one write per group commit). */
  readonly batchBytes: number[] = [];
  readonly batchLines: number[] = [];
  ledgerDatasyncs = 0;
  /** fsync/fdatasync of anything else (checkpoint sidecar, its directory) while recording. */
  otherSyncs = 0;
  /** Milliseconds from call to completion of each ledger-fd operation, summed while recording. */
  readonly opMs = { fence: 0, write: 0, fdatasync: 0, gap: 0 };
  gaps = 0;
  private lastSyncDone: bigint | undefined;
  /**
   * Milliseconds of the recording windows during which at least one ledger fdatasync was in
   * flight, from the call until its promise settles (so a completion the busy main thread has
   * not yet seen still counts): about the disk's share of the time. The rest, the disk idled
   * while every commit waited on the main thread.
   */
  syncBusyMs = 0;
  private syncsInFlight = 0;
  private busySince: bigint | undefined;

  get recording(): boolean {
    return this.on;
  }

  /** Starts or stops recording; a new window does not count the pause before it as a gap. */
  set recording(on: boolean) {
    this.on = on;
    this.lastSyncDone = undefined;
    // A sync that spans a window's edge counts only for its part inside the window.
    if (on && this.syncsInFlight > 0) this.busySince = now();
    if (!on && this.busySince !== undefined) {
      this.syncBusyMs += Number(now() - this.busySince) / 1e6;
      this.busySince = undefined;
    }
  }

  /** Tracked whether recording or not, so a window that opens mid-sync knows one is in flight. */
  private trackLedgerSync(op: Promise<void>): Promise<void> {
    if (this.syncsInFlight++ === 0 && this.on) this.busySince = now();
    const settle = (): void => {
      if (--this.syncsInFlight === 0 && this.busySince !== undefined) {
        this.syncBusyMs += Number(now() - this.busySince) / 1e6;
        this.busySince = undefined;
      }
    };
    op.then(settle, settle);
    return op;
  }

  /** `startsCommit`: the writer's first call of a group commit (its fence's size check). */
  private timed<T>(kind: 'fence' | 'write' | 'fdatasync', fd: number, op: Promise<T>, startsCommit = false): Promise<T> {
    if (!this.recording || fd !== this.ledgerFd) return op;
    const start = now();
    if (startsCommit && this.lastSyncDone !== undefined) {
      this.opMs.gap += Number(start - this.lastSyncDone) / 1e6;
      this.gaps += 1;
    }
    return op.then((value) => {
      const end = now();
      this.opMs[kind] += Number(end - start) / 1e6;
      if (kind === 'fdatasync' && this.on) this.lastSyncDone = end;
      return value;
    });
  }

  constructor(
    private readonly inner: LedgerFs,
    private readonly ledgerPath: string,
  ) {}

  async open(path: string, flags: string, mode?: number): Promise<number> {
    const fd = await this.inner.open(path, flags, mode);
    if (path === this.ledgerPath) this.ledgerFd = fd;
    return fd;
  }

  write(fd: number, buffer: Buffer, position: number): Promise<void> {
    if (this.recording && fd === this.ledgerFd) {
      this.batchBytes.push(buffer.length);
      this.batchLines.push(countLines(buffer));
    }
    return this.timed('write', fd, this.inner.write(fd, buffer, position));
  }

  read(fd: number, buffer: Buffer, position: number): Promise<number> {
    return this.timed('fence', fd, this.inner.read(fd, buffer, position), true);
  }

  fdatasync(fd: number): Promise<void> {
    if (this.recording) {
      if (fd === this.ledgerFd) this.ledgerDatasyncs += 1;
      else this.otherSyncs += 1;
    }
    const op = this.inner.fdatasync(fd);
    return this.timed('fdatasync', fd, fd === this.ledgerFd ? this.trackLedgerSync(op) : op);
  }

  fsync(fd: number): Promise<void> {
    if (this.recording) this.otherSyncs += 1;
    return this.inner.fsync(fd);
  }

  ftruncate(fd: number, length: number): Promise<void> {
    return this.inner.ftruncate(fd, length);
  }

  close(fd: number): Promise<void> {
    return this.inner.close(fd);
  }

  rename(from: string, to: string): Promise<void> {
    return this.inner.rename(from, to);
  }

  mkdir(path: string): Promise<string | undefined> {
    return this.inner.mkdir(path);
  }

  fsyncDirectory(path: string): Promise<void> {
    if (this.recording) this.otherSyncs += 1;
    return this.inner.fsyncDirectory(path);
  }
}

function countLines(buffer: Buffer): number {
  let lines = 0;
  for (let at = buffer.indexOf(10); at !== -1; at = buffer.indexOf(10, at + 1)) lines += 1;
  return lines;
}

/** Alternating action.received / policy.decided events of distinct actions (sample-flow shapes). */
function eventPool(size: number): LedgerEvent[] {
  const context = benchFlowContext();
  const events: LedgerEvent[] = [];
  for (let i = 0; events.length < size; i += 1) {
    const flow = i % 4 === 3 ? denyFlow(context, `act_bench_deny_${i}`) : allowFlow(context, `act_bench_${i}`, 1 + 2 * i, `deploy ${i} finished`);
    events.push(flow[0] as LedgerEvent, flow[1] as LedgerEvent);
  }
  return events;
}

interface WriterRun {
  concurrency: number;
  seconds: number;
  acked: number;
  rate: number;
  batches: number[];
  batchLines: number[];
  datasyncs: number;
  otherSyncs: number;
  /** Lines written per durable ledger write (includes in-band checkpoint records). */
  meanBatch: number;
  /** Share of written lines that were appends of the benchmark (the rest are checkpoints). */
  userShare: number;
  p50: number;
  p99: number;
  /** Mean milliseconds per group commit: fence (one tail read), write, fdatasync, and the gap between one commit's fdatasync and the next commit (acks, then the next appends sealed: main-thread CPU). */
  perCommit: { fence: number; write: number; fdatasync: number; gap: number };
  /** Share of the windows with a ledger fdatasync in flight: below 1, the disk waited for the process. */
  syncBusy: number;
  /** CPU microseconds (user + system, every thread of the process, the bench's clients included) per acknowledged append. */
  cpuPerAppend: number;
}

interface RawRun {
  seconds: number;
  batches: number;
  lines: number;
  /** Records per second, counting the writer's share of benchmark appends per line. */
  rate: number;
}

interface Timing {
  warmupMs: number;
  /** Writer and raw baselines alternate in rounds, so a slow spell of the machine hits both. */
  rounds: number;
  writerMs: number;
  rawMs: number;
}

/** Replays the writer's recorded batch lengths (cycling through them) on a growing file of its own. */
class RawReplay {
  private position = 0;
  private cursor = 0;
  readonly total = { seconds: 0, batches: 0, lines: 0 };

  private constructor(
    private readonly fd: number,
    private readonly sync: boolean,
  ) {}

  static async open(path: string, sync: boolean): Promise<RawReplay> {
    return new RawReplay(sync ? openSync(path, 'w+', 0o600) : await nodeLedgerFs.open(path, 'w+'), sync);
  }

  /** writeSync + fdatasyncSync, or node's promisified fs.write + fs.fdatasync (the libuv pool, as the writer uses). */
  async run(batches: readonly number[], lines: readonly number[], source: Buffer, durationMs: number, count = true): Promise<void> {
    const start = now();
    const limit = BigInt(durationMs) * 1_000_000n;
    let done = 0;
    let written = 0;
    while (now() - start < limit) {
      const index = this.cursor % batches.length;
      const length = batches[index] as number;
      if (this.sync) {
        for (let at = 0; at < length; ) at += writeSync(this.fd, source, at, length - at, this.position + at);
        fdatasyncSync(this.fd);
      } else {
        await nodeLedgerFs.write(this.fd, source.subarray(0, length), this.position);
        await nodeLedgerFs.fdatasync(this.fd);
      }
      this.position += length;
      this.cursor += 1;
      done += 1;
      written += lines[index] as number;
    }
    if (!count) return;
    this.total.seconds += seconds(start);
    this.total.batches += done;
    this.total.lines += written;
  }

  async close(userShare: number): Promise<RawRun> {
    if (this.sync) closeSync(this.fd);
    else await nodeLedgerFs.close(this.fd);
    const { seconds: secs, batches, lines } = this.total;
    return { seconds: secs, batches, lines, rate: (lines * userShare) / Math.max(secs, 1e-9) };
  }
}

/** Reads the first `length` bytes of the writer's own ledger: the raw baseline writes real ledger bytes. */
function sourceBytes(path: string, length: number): Buffer {
  const buffer = Buffer.alloc(Math.max(1, length));
  const fd = openSync(path, 'r');
  try {
    let done = 0;
    while (done < buffer.length) {
      const read = readSync(fd, buffer, done, buffer.length - done, done);
      if (read === 0) break;
      done += read;
    }
  } finally {
    closeSync(fd);
  }
  return buffer;
}

/**
 * `concurrency` async loops, each awaiting writer.append(event) in turn, on a fresh ledger with
 * the writer's default checkpointing. After the warm-up, rounds alternate: a writer window (the
 * loops run, everything the writer does to the file is recorded), then the loops pause and the
 * raw baselines replay the batch lengths recorded so far.
 */
async function measure(dir: string, concurrency: number, events: LedgerEvent[], timing: Timing): Promise<{ writer: WriterRun; sync: RawRun; async: RawRun }> {
  const path = join(dir, `ledger-c${concurrency}.jsonl`);
  const fs = new CountingFs(nodeLedgerFs, path);
  const writer = await LedgerWriter.open({ path, key: benchFlowContext().keys.pass, origin: BENCH_ORIGIN, fs });
  let acked = 0;
  let stop = false;
  let recording = false;
  let gate: Promise<void> | undefined;
  let openGate = (): void => undefined;
  const latencies: number[] = [];
  let failure: unknown;
  const loop = async (first: number): Promise<void> => {
    for (let next = first; !stop; next += concurrency) {
      if (gate) await gate;
      const started = now();
      await writer.append(events[next % events.length] as LedgerEvent);
      if (recording) latencies.push(Number(now() - started) / 1e6);
      acked += 1;
    }
  };
  const loops = Array.from({ length: concurrency }, (_, i) =>
    loop(i).catch((error: unknown) => {
      failure ??= error;
      stop = true;
    }),
  );
  const pause = async (): Promise<void> => {
    gate = new Promise((resolve) => (openGate = resolve));
    await writer.drain();
  };
  const resume = (): void => {
    gate = undefined;
    openGate();
  };

  const rawSync = await RawReplay.open(join(dir, `raw-sync-c${concurrency}.bin`), true);
  const rawAsync = await RawReplay.open(join(dir, `raw-async-c${concurrency}.bin`), false);
  let elapsed = 0;
  let ackedInWindows = 0;
  let cpuMicros = 0;
  try {
    await sleep(timing.warmupMs);
    for (let round = 0; round < timing.rounds && !stop; round += 1) {
      fs.recording = true;
      recording = true;
      const ackedBefore = acked;
      const start = now();
      const cpuBefore = process.cpuUsage();
      await sleep(timing.writerMs);
      const cpu = process.cpuUsage(cpuBefore);
      cpuMicros += cpu.user + cpu.system;
      ackedInWindows += acked - ackedBefore;
      elapsed += seconds(start);
      fs.recording = false;
      recording = false;
      await pause();
      if (fs.batchBytes.length === 0) throw new Error(`no ledger writes recorded at concurrency ${concurrency}`);
      const source = sourceBytes(path, Math.max(...fs.batchBytes));
      if (round === 0) await rawSync.run(fs.batchBytes, fs.batchLines, source, Math.min(200, timing.rawMs), false);
      await rawSync.run(fs.batchBytes, fs.batchLines, source, timing.rawMs);
      await rawAsync.run(fs.batchBytes, fs.batchLines, source, timing.rawMs);
      resume();
    }
  } finally {
    stop = true;
    resume();
    await Promise.all(loops);
    await writer.close();
  }
  if (failure) throw failure;
  const lines = fs.batchLines.reduce((sum, n) => sum + n, 0);
  const userShare = lines > 0 ? Math.min(1, ackedInWindows / lines) : 1;
  latencies.sort((a, b) => a - b);
  const quantile = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  const commits = Math.max(1, fs.ledgerDatasyncs);
  const run: WriterRun = {
    concurrency,
    seconds: elapsed,
    acked: ackedInWindows,
    rate: ackedInWindows / elapsed,
    batches: fs.batchBytes,
    batchLines: fs.batchLines,
    datasyncs: fs.ledgerDatasyncs,
    otherSyncs: fs.otherSyncs,
    meanBatch: fs.batchBytes.length > 0 ? lines / fs.batchBytes.length : 0,
    userShare,
    p50: quantile(0.5),
    p99: quantile(0.99),
    perCommit: {
      fence: fs.opMs.fence / commits,
      write: fs.opMs.write / commits,
      fdatasync: fs.opMs.fdatasync / commits,
      gap: fs.opMs.gap / Math.max(1, fs.gaps),
    },
    syncBusy: fs.syncBusyMs / (1000 * elapsed),
    cpuPerAppend: cpuMicros / Math.max(1, ackedInWindows),
  };
  return { writer: run, sync: await rawSync.close(userShare), async: await rawAsync.close(userShare) };
}

export const benchmark: Benchmark = {
  name: 'ledger-append',
  description: 'durable LedgerWriter appends/s at concurrency 1 and 64 vs raw fdatasync of the same batches',
  async run(options: BenchOptions): Promise<BenchResult> {
    const timing: Timing = options.quick ? { warmupMs: 300, rounds: 2, writerMs: 500, rawMs: 300 } : { warmupMs: 1000, rounds: 3, writerMs: 1000, rawMs: 600 };
    const dir = join(options.outDir, `append-${process.pid}`);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    const events = eventPool(2048);
    const sampleBytes = events.slice(0, 200).map((event) => canonicalJson({ v: 0, seq: 100_000, ts: new Date().toISOString(), stream: event.stream, prevHash: `sha256:${'0'.repeat(64)}`, type: event.type, data: event.data }).length + 1);
    const meanRecord = sampleBytes.reduce((sum, n) => sum + n, 0) / sampleBytes.length;
    console.log(
      `  events: alternating action.received / policy.decided, mean ${fmtInt(meanRecord)} bytes per record; after ${timing.warmupMs / 1000} s warm-up, ` +
        `${timing.rounds} rounds of ${timing.writerMs / 1000} s writer, then ${timing.rawMs / 1000} s of each raw baseline replaying the writer's batches`,
    );

    const rows: string[][] = [];
    const metrics: Metric[] = [{ label: 'mean record bytes', value: meanRecord, unit: 'bytes' }];
    const results = new Map<number, { writer: WriterRun; sync: RawRun; async: RawRun }>();
    try {
      for (const concurrency of CONCURRENCIES) {
        const { writer, sync, async } = await measure(dir, concurrency, events, timing);
        results.set(concurrency, { writer, sync, async });
        const batch = fmtNum(writer.meanBatch, 1);
        rows.push(
          [`LedgerWriter c${concurrency}`, fmtInt(writer.rate), fmtNum(writer.rate / sync.rate, 3), batch, fmtInt(writer.datasyncs / writer.seconds), fmtNum(writer.p50, 3), fmtNum(writer.p99, 3)],
          [`  raw writeSync+fdatasyncSync, same batches`, fmtInt(sync.rate), '1.000', batch, fmtInt(sync.batches / sync.seconds), '', ''],
          [`  raw async fs.write+fs.fdatasync, same batches`, fmtInt(async.rate), fmtNum(async.rate / sync.rate, 3), batch, fmtInt(async.batches / async.seconds), '', ''],
        );
        metrics.push(
          { label: `c${concurrency} writer`, value: writer.rate, unit: 'records/s' },
          { label: `c${concurrency} raw sync`, value: sync.rate, unit: 'records/s' },
          { label: `c${concurrency} raw async`, value: async.rate, unit: 'records/s' },
          { label: `c${concurrency} writer vs raw sync`, value: writer.rate / sync.rate, unit: 'ratio' },
          { label: `c${concurrency} writer vs raw async`, value: writer.rate / async.rate, unit: 'ratio' },
          { label: `c${concurrency} mean batch`, value: writer.meanBatch, unit: 'records' },
          { label: `c${concurrency} ledger fdatasync`, value: writer.datasyncs / writer.seconds, unit: '1/s' },
          { label: `c${concurrency} other syncs (checkpoint sidecar)`, value: writer.otherSyncs / writer.seconds, unit: '1/s' },
          { label: `c${concurrency} append latency p50`, value: writer.p50, unit: 'ms' },
          { label: `c${concurrency} append latency p99`, value: writer.p99, unit: 'ms' },
        );
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    console.log(table(['measure', 'records/s', 'vs raw sync', 'mean batch', 'fdatasync/s', 'p50 ms', 'p99 ms'], rows));
    const cycleRows: string[][] = [];
    for (const [concurrency, { writer, sync }] of results) {
      const c = writer.perCommit;
      const cycle = (writer.seconds * 1000) / Math.max(1, writer.datasyncs);
      cycleRows.push([
        `LedgerWriter c${concurrency}`,
        fmtNum(cycle, 3),
        fmtNum(c.fence, 3),
        fmtNum(c.write, 3),
        fmtNum(c.fdatasync, 3),
        fmtNum(c.gap, 3),
        fmtNum((1000 * sync.seconds) / Math.max(1, sync.batches), 3),
        fmtNum(writer.syncBusy, 2),
        fmtNum(writer.cpuPerAppend, 1),
      ]);
      metrics.push(
        { label: `c${concurrency} commit cycle`, value: cycle, unit: 'ms' },
        { label: `c${concurrency} commit fence`, value: c.fence, unit: 'ms' },
        { label: `c${concurrency} commit write`, value: c.write, unit: 'ms' },
        { label: `c${concurrency} commit fdatasync`, value: c.fdatasync, unit: 'ms' },
        { label: `c${concurrency} between commits`, value: c.gap, unit: 'ms' },
        { label: `c${concurrency} ledger fdatasync in flight`, value: writer.syncBusy, unit: 'share' },
        { label: `c${concurrency} process CPU per append`, value: writer.cpuPerAppend, unit: 'us' },
      );
    }
    console.log(
      '  per group commit, ms (fence = one tail read; between = acks, then sealing the next batch, on the main thread); ' +
        'in flight = share of the time a ledger fdatasync was in flight; CPU = process CPU µs per append, clients included:',
    );
    console.log(table(['', 'cycle', 'fence', 'write', 'fdatasync', 'between', 'raw sync cycle', 'in flight', 'CPU µs'], cycleRows));
    for (const [concurrency, { writer }] of results) {
      console.log(`  c${concurrency}: ${fmtInt(writer.acked)} appends in ${fmtNum(writer.seconds, 2)} s, ${fmtInt(writer.batches.length)} group commits, ${fmtInt(writer.otherSyncs)} sidecar/directory syncs`);
    }
    const c64 = results.get(64);
    const targets = c64 ? [target('c64 durable appends/s', c64.writer.rate, '>=', 50_000, 'records/s'), target('c64 writer / raw fdatasync', c64.writer.rate / c64.sync.rate, '>=', 0.35, 'ratio')] : [];
    printTargets(targets);
    return { name: this.name, metrics, targets, notes: [] };
  },
};
