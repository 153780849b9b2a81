/**
 * Crash test: a child process appends to a ledger from 16 concurrent loops and is killed with
 * SIGKILL at a random moment, over and over, on the same ledger: each child continues the chain
 * the previous one left, torn tails, recoveries, checkpoints and stale locks included. After every
 * kill the acknowledged records must be on disk; the ledger must reopen (recovering a torn tail),
 * still hold every record acknowledged on it with the same leaf hash, scan valid, and a second open
 * and close must not change a byte of the ledger or its sidecar. Two lanes run side by side, each
 * on its own chain; a chain is replaced once it passes MAX_CHAIN_BYTES, only to bound scan time.
 *
 * The child is test/children/append-until-killed.ts, run from its build output (`npm run build`).
 * Kills vary: a random delay after the first acknowledgement, a random delay after spawn (often
 * before any acknowledgement, during startup or recovery), a SIGKILL that lands in the middle of a
 * ledger pwrite (the child cuts the write at a page boundary and kills itself, which is what Linux
 * does with a fatal signal during a buffered write), and a kill in the middle of the child
 * recovering the torn tail left by the previous kill.
 *
 * Seeded: SVC_CRASH_TEST_SEED=<n> replays the same choices (kill timing itself is not
 * reproducible, it races the child by nature).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { signingKeyFromSeed } from '../../src/actionpass/keys.js';
import { SvcError } from '../../src/errors.js';
import { scanLedger } from '../../src/events/ledger-scan.js';
import { LedgerWriter } from '../../src/events/ledger-writer.js';
import { tempDir } from '../support/ledger.js';
import { seededRandom } from '../children/seeded-random.js';

/** SIGKILLs per run, over all lanes. */
const CRASH_ITERATIONS = 200;
/**
 * Independent ledgers killed in parallel. Most of an iteration is the child's Node startup
 * (~150-250 ms, mostly module loading), so two lanes roughly halve the run time on two cores.
 */
const LANES = 2;
/** Each child loop pauses 0..PAUSE_MS ms between appends, so a kill 5-80 ms in finds a busy writer but the ledger grows by tens of records, not thousands. */
const PAUSE_MS = 6;
/**
 * Every child continues the previous chain; only once a ledger passes this size does the test
 * start a new one, to bound the time each reopen spends scanning (a scan is ~30 µs a record).
 */
const MAX_CHAIN_BYTES = 1_500_000;

const KEY_NAME = 'svc.test/crash';
const ORIGIN = 'svc.test/org:acme/crash';
const KEY_SEED = createHash('sha256').update('svc crash test ledger key').digest();
const key = signingKeyFromSeed(KEY_NAME, KEY_SEED);
const CHILD = fileURLToPath(new URL('../../dist/test/children/append-until-killed.js', import.meta.url));
const SEED = Number(process.env.SVC_CRASH_TEST_SEED ?? 20261121);
/** proper-lockfile's stale age in src/events/writer-lock.ts. */
const LOCK_STALE_MS = 10_000;

type Kind = 'timed' | 'early' | 'tear' | 'recovery';


function leafHash(line: Buffer): string {
  return `sha256:${createHash('sha256').update(Buffer.from([0])).update(line).digest('hex')}`;
}

interface LedgerLines {
  bytes: Buffer;
  /** Leaf hash of every `\n`-terminated line, by line index (= seq in a valid ledger). */
  hashes: string[];
  types: string[];
  /** The data of every `ledger.recovered` record, in order. */
  recovered: Array<{ truncatedBytes: number; quarantineFile: string; reason: string }>;
  /** Bytes after the last `\n`. */
  unterminated: number;
}

async function readLedger(path: string): Promise<LedgerLines> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    bytes = Buffer.alloc(0);
  }
  const hashes: string[] = [];
  const types: string[] = [];
  const recovered: LedgerLines['recovered'] = [];
  let start = 0;
  for (let newline = bytes.indexOf(10); newline !== -1; newline = bytes.indexOf(10, start)) {
    const line = bytes.subarray(start, newline);
    hashes.push(leafHash(line));
    let type = '(not json)';
    try {
      const record = JSON.parse(line.toString('utf8')) as { type?: unknown; data?: unknown };
      type = String(record.type);
      if (type === 'ledger.recovered') recovered.push(record.data as LedgerLines['recovered'][number]);
    } catch {
      // a type that no record has
    }
    types.push(type);
    start = newline + 1;
  }
  return { bytes, hashes, types, recovered, unterminated: bytes.length - start };
}

async function readOptional(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

interface ChildRun {
  acks: Array<{ seq: number; hash: string }>;
  ready: boolean;
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  protocolErrors: string[];
  /** The parent's kill timer fired (as opposed to the child killing itself). */
  killedByParent: boolean;
}

/** Spawns the child and SIGKILLs it as `kind` says; resolves once it has exited and been reaped. */
async function runChild(path: string, kind: Kind, random: () => number, label: string): Promise<ChildRun> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SVC_CRASH_KEY_SEED: KEY_SEED.toString('hex'),
    SVC_CRASH_KEY_NAME: KEY_NAME,
    SVC_CRASH_ORIGIN: ORIGIN,
    SVC_CRASH_SEED: String(Math.floor(random() * 2 ** 31)),
    SVC_CRASH_RUN: label,
    SVC_CRASH_LOOPS: '16',
    SVC_CRASH_PAUSE_MS: String(PAUSE_MS),
  };
  if (kind === 'tear') env.SVC_CRASH_TEAR_WRITE = String(1 + Math.floor(random() * 12));
  const selfKillInRecovery = kind === 'recovery' && random() < 0.7;
  // LedgerWriter.open on a torn ledger performs about 13 file operations (mkdir, quarantine temp
  // file open/write/fsync/close, rename, directory fsync, ftruncate, fsync, write, fdatasync).
  if (selfKillInRecovery) env.SVC_CRASH_KILL_OPEN_OP = String(1 + Math.floor(random() * 14));
  // Node starts and loads the writer in ~150-250 ms, so up to 300 ms after spawn covers startup,
  // the lock takeover, the scan, recovery or creation, and the first appends.
  const afterSpawnMs = kind === 'early' ? random() * 300 : kind === 'recovery' && !selfKillInRecovery ? 100 + random() * 200 : undefined;
  const afterAckMs = kind === 'tear' ? 250 : 5 + random() * 75;

  const child = spawn(process.execPath, [CHILD, path], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const result: ChildRun = { acks: [], ready: false, code: null, signal: null, stderr: '', protocolErrors: [], killedByParent: false };
  const timers: NodeJS.Timeout[] = [];
  const kill = (): void => {
    result.killedByParent = true;
    child.kill('SIGKILL');
  };
  if (afterSpawnMs !== undefined) timers.push(setTimeout(kill, afterSpawnMs));
  // Nothing in a healthy run comes near this; it only keeps a hung child from hanging the suite.
  timers.push(setTimeout(() => {
    result.protocolErrors.push('child still running after 20 s');
    kill();
  }, 20_000));

  let pending = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    pending += chunk;
    let newline: number;
    while ((newline = pending.indexOf('\n')) !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      const ack = /^(\d+) (sha256:[0-9a-f]{64})$/.exec(line);
      if (ack) {
        if (result.acks.length === 0) timers.push(setTimeout(kill, afterAckMs));
        result.acks.push({ seq: Number(ack[1]), hash: ack[2] as string });
      } else if (/^ready \d+$/.test(line)) {
        result.ready = true;
      } else {
        result.protocolErrors.push(`unexpected line ${JSON.stringify(line)}`);
      }
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (result.stderr += chunk));

  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      result.code = code;
      result.signal = signal;
      resolve();
    }),
  );
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  await Promise.all([exited, closed]);
  for (const timer of timers) clearTimeout(timer);
  // A write to a pipe of less than PIPE_BUF bytes is atomic, so a kill never leaves half a line.
  if (pending !== '') result.protocolErrors.push(`partial line ${JSON.stringify(pending)}`);
  return result;
}

/** Whether the lock left by a killed child names it, so the next opener can take the lock over at once. */
async function lockOwnerRecorded(path: string): Promise<boolean> {
  try {
    const owner = JSON.parse(await readFile(`${path}.lock.owner`, 'utf8')) as { pid?: unknown; lockId?: unknown };
    const info = await stat(`${path}.lock`, { bigint: true });
    return typeof owner.pid === 'number' && owner.lockId === `${info.ino}:${info.birthtimeNs}`;
  } catch {
    return false;
  }
}

const stats = {
  iterations: 0,
  kinds: { timed: 0, early: 0, tear: 0, recovery: 0 } as Record<Kind, number>,
  killedBeforeReady: 0,
  killedBeforeAnyAck: 0,
  /** The child killed itself: inside a ledger write (tear) or at a chosen step of recovery. */
  selfKills: 0,
  /** Children handed a torn ledger that died before their open (and so their recovery) finished. */
  killedWhileRecovering: 0,
  acknowledged: 0,
  /** Kills after which the ledger ended in a torn line, by kind of kill. */
  tornAfterKill: { timed: 0, early: 0, tear: 0, recovery: 0 } as Record<Kind, number>,
  /** Torn ledgers handed to the next child instead of being recovered by the parent. */
  tornLeftForChild: 0,
  /** Parent reopens that found a torn tail and recorded `ledger.recovered`. */
  iterationsRecovering: 0,
  /** `ledger.recovered` records written, by the parent's reopens or by children recovering, by reason. */
  recoveredRecords: 0,
  recoveredReasons: {} as Record<string, number>,
  /** Kills between taking the lock and recording its owner: the next open waits until the lock is stale. */
  lockWindowHits: 0,
  chains: 0,
  records: 0,
  childMs: 0,
  verifyMs: 0,
  elapsedMs: 0,
};

/** One lane: a chain of ledgers, each continued by child after child until it passes MAX_CHAIN_BYTES. */
async function runLane(lane: number, iterations: number): Promise<void> {
  const random = seededRandom(SEED * 31 + lane);
  const newChain = async (): Promise<string> => {
    stats.chains += 1;
    return join(await tempDir(`svc-crash-${lane}-`), '.svc', 'ledger.jsonl');
  };
  let path = await newChain();
  /** Every acknowledgement on the current chain: seq -> leaf hash. */
  let acknowledged = new Map<number, string>();
  let recoveredSeen = 0;
  let nextKind: Kind | undefined;

  for (let iteration = 0; iteration < iterations; iteration += 1) {
    const roll = random();
    const kind: Kind = nextKind ?? (roll < 0.55 ? 'timed' : roll < 0.7 ? 'early' : 'tear');
    nextKind = undefined;
    stats.iterations += 1;
    stats.kinds[kind] += 1;
    const context = `seed ${SEED}, lane ${lane}, iteration ${iteration} (${kind}), ledger ${path}`;

    const childStarted = performance.now();
    const run = await runChild(path, kind, random, `l${lane}i${iteration}`);
    stats.childMs += performance.now() - childStarted;
    const verifyStarted = performance.now();
    expect(run.protocolErrors, context).toEqual([]);
    expect({ code: run.code, signal: run.signal, stderr: run.stderr }, `${context}: the child must only ever end by SIGKILL`).toEqual({ code: null, signal: 'SIGKILL', stderr: '' });
    if (!run.ready) stats.killedBeforeReady += 1;
    if (!run.killedByParent) stats.selfKills += 1;
    if (kind === 'recovery' && !run.ready) stats.killedWhileRecovering += 1;
    if (run.acks.length === 0) stats.killedBeforeAnyAck += 1;
    stats.acknowledged += run.acks.length;

    // Before anything recovers: every acknowledged record is on disk, whole, with its hash.
    const raw = await readLedger(path);
    for (const ack of run.acks) {
      const earlier = acknowledged.get(ack.seq);
      expect(earlier === undefined || earlier === ack.hash, `${context}: seq ${ack.seq} acknowledged twice with different hashes`).toBe(true);
      acknowledged.set(ack.seq, ack.hash);
      expect(raw.hashes[ack.seq], `${context}: acknowledged seq ${ack.seq} after the kill`).toBe(ack.hash);
    }
    const torn = raw.unterminated > 0;
    if (torn) stats.tornAfterKill[kind] += 1;

    // Half the torn ledgers go to the next child, which is killed while it recovers them.
    if (torn && iteration + 1 < iterations && random() < 0.5 && (await lockOwnerRecorded(path))) {
      stats.tornLeftForChild += 1;
      nextKind = 'recovery';
      stats.verifyMs += performance.now() - verifyStarted;
      continue;
    }

    // Reopen: recovers a torn tail and continues the chain.
    let writer: LedgerWriter;
    try {
      writer = await LedgerWriter.open({ path, key, origin: ORIGIN, checkpointEveryMs: 0 });
    } catch (error) {
      if (!(error instanceof SvcError && error.code === 'ledger_locked') || (await lockOwnerRecorded(path))) throw error;
      // The child died after creating the lock directory and before recording its owner: nothing
      // says the holder is gone, so the lock is only taken over once it is stale.
      stats.lockWindowHits += 1;
      const lockAge = Date.now() - (await stat(`${path}.lock`)).mtimeMs;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, LOCK_STALE_MS - lockAge) + 500));
      writer = await LedgerWriter.open({ path, key, origin: ORIGIN, checkpointEveryMs: 0 });
    }
    expect(writer.origin, context).toBe(ORIGIN);
    const reopened = await readLedger(path);
    expect(reopened.unterminated, `${context}: the reopened ledger ends in a torn line`).toBe(0);
    for (const [seq, hash] of acknowledged) expect(reopened.hashes[seq], `${context}: acknowledged seq ${seq} after recovery`).toBe(hash);
    if (torn) {
      // This open found the torn tail, so its last record must say so.
      expect(reopened.types.at(-1), `${context}: a torn tail was opened without a ledger.recovered record`).toBe('ledger.recovered');
      stats.iterationsRecovering += 1;
    }
    // Every recovery (this open's, or a killed child's) kept what it truncated.
    for (const recovery of reopened.recovered.slice(recoveredSeen)) {
      const quarantined = await readOptional(join(dirname(path), recovery.quarantineFile));
      expect(quarantined?.length, `${context}: quarantine file ${recovery.quarantineFile}`).toBe(recovery.truncatedBytes);
      stats.recoveredRecords += 1;
      stats.recoveredReasons[recovery.reason] = (stats.recoveredReasons[recovery.reason] ?? 0) + 1;
    }
    recoveredSeen = reopened.recovered.length;
    await writer.close();

    const scan = await scanLedger(path);
    expect(scan.kind, `${context}: ${scan.kind === 'corrupt' ? JSON.stringify(scan.defect) : ''}`).toBe('valid');
    expect(scan.kind === 'valid' && scan.tornTail, context).toBeFalsy();

    // A clean open and close changes nothing: no recovery, no checkpoint, no sidecar rewrite.
    const ledgerBefore = await readFile(path);
    const sidecarBefore = await readOptional(`${path}.checkpoint`);
    const again = await LedgerWriter.open({ path, key, origin: ORIGIN, checkpointEveryMs: 0 });
    await again.close();
    expect((await readFile(path)).equals(ledgerBefore), `${context}: the second open and close changed the ledger`).toBe(true);
    expect(await readOptional(`${path}.checkpoint`), `${context}: the second open and close changed the sidecar`).toEqual(sidecarBefore);
    stats.verifyMs += performance.now() - verifyStarted;

    if (ledgerBefore.length > MAX_CHAIN_BYTES && iteration + 1 < iterations) {
      stats.records += reopened.hashes.length;
      // Passed: drop it (a failing chain stays on disk, its path is in the failure message).
      await rm(dirname(dirname(path)), { recursive: true, force: true });
      path = await newChain();
      acknowledged = new Map();
      recoveredSeen = 0;
    }
  }
  // The last kill of the lane may have left a torn tail for a child that never came: check it.
  const final = await LedgerWriter.open({ path, key, origin: ORIGIN, checkpointEveryMs: 0 });
  await final.close();
  const lines = await readLedger(path);
  for (const [seq, hash] of acknowledged) expect(lines.hashes[seq], `seed ${SEED}, lane ${lane}: acknowledged seq ${seq} at the end`).toBe(hash);
  expect((await scanLedger(path)).kind).toBe('valid');
  stats.records += lines.hashes.length;
  await rm(dirname(dirname(path)), { recursive: true, force: true });
}

describe('ledger writer under SIGKILL', () => {
  afterAll(() => {
    console.log(`[crash] seed ${SEED}: ${JSON.stringify({ ...stats, childMs: Math.round(stats.childMs), verifyMs: Math.round(stats.verifyMs) })}`);
  });

  it(`keeps every acknowledged record and recovers torn tails across ${CRASH_ITERATIONS} kills`, async () => {
    expect(existsSync(CHILD), `${CHILD} is missing: run npm run build first`).toBe(true);
    const started = performance.now();
    await Promise.all(Array.from({ length: LANES }, (_, lane) => runLane(lane, Math.ceil(CRASH_ITERATIONS / LANES))));
    stats.elapsedMs = Math.round(performance.now() - started);

    // The run exercised what it claims to.
    expect(stats.iterations).toBeGreaterThanOrEqual(CRASH_ITERATIONS);
    expect(stats.iterationsRecovering, `seed ${SEED}: no reopen found a torn tail to recover`).toBeGreaterThan(0);
    expect(stats.recoveredRecords).toBeGreaterThan(0);
    expect(stats.killedWhileRecovering, `seed ${SEED}: no child was killed while recovering`).toBeGreaterThan(0);
    expect(stats.killedBeforeAnyAck, `seed ${SEED}: no kill landed before the first acknowledgement`).toBeGreaterThan(0);
    expect(stats.acknowledged).toBeGreaterThan(CRASH_ITERATIONS);
  }, 300_000);
});
