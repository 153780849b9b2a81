import { stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { SvcError } from '../errors.js';
import { publicKeyInfo, type SigningKey } from '../actionpass/keys.js';
import { canonicalJson, type Sha256 } from './canonical.js';
import { checkEvent, LEDGER_FORMAT, type LedgerEvent, type LedgerRecord } from './catalogue.js';
import { ChainChecker, type CheckedRecord } from './chain-checker.js';
import { signCheckpoint } from './checkpoint.js';
import { nodeLedgerFs, type LedgerFs } from './ledger-fs.js';
import { MAX_LINE_BYTES } from './line-reader.js';
import { CompactRange, hashLineLeafHex } from './merkle.js';
import { MAX_BATCH_BYTES, MAX_BATCH_RECORDS, MAX_COMMITS_IN_FLIGHT, scanLedger, type LedgerScan, type TornTail } from './ledger-scan.js';
import { readResumePoint, writeResumePoint } from './resume-point.js';
import { acquireWriterLock, type WriterLock } from './writer-lock.js';

/** What an append returns once its record is durable. */
export interface Receipt {
  seq: number;
  /** The record's leaf hash, `sha256:…`. */
  hash: string;
  ts: string;
  type: LedgerRecord['type'];
}

export interface OpenLedgerOptions {
  path: string;
  /** Signs checkpoints; listed in the genesis of a new ledger and required to be listed in an existing one. */
  key: SigningKey;
  /** Origin of a new ledger (default `svc.local/<random id>`); an existing ledger keeps its own. */
  origin?: string;
  checkpointEveryRecords?: number;
  checkpointEveryMs?: number;
  fs?: LedgerFs;
  now?: () => number;
  /**
   * Called synchronously with each record as it is sealed, in seq order, before it is durable.
   * The single writer's in-memory state folds here, so a decision taken right after an append
   * already sees it (an approval used once, a budget); nothing is acknowledged before durability.
   */
  onSealed?: (record: CheckedRecord) => void;
  /** Called with each batch once it is durable, in seq order: the hook live projections use. */
  onDurable?: (records: readonly CheckedRecord[]) => void;
  /** Where torn tails are kept (default `<ledger dir>/quarantine`). */
  quarantineDir?: string;
  /** The owner's projection of the ledger, saved in the resume point written at a clean close (resume-point.ts). */
  projection?: LedgerProjection;
  /** Reopen from the resume point when it still describes the file, reading only what follows it. */
  resume?: boolean;
}

/**
 * State folded from the ledger by whoever owns the writer. Opening feeds it every record the scan
 * accepts, so the file is read once for both the chain check and the fold.
 */
export interface LedgerProjection {
  /**
   * Called before each opening scan: with the state saved at the resume point the scan goes on
   * from, or undefined for a scan from the genesis (start empty). False refuses the resume point.
   */
  start(saved: unknown): boolean;
  /** Each record the opening scan accepts, in seq order. */
  apply(checked: CheckedRecord): void;
  /** The state to save at close, covering every record sealed so far. */
  save(): unknown;
}

/**
 * A record as onSealed and onDurable get it. It carries its leaf hash as the `sha256:` text the
 * receipt and the next prevHash use (`recordHash`, which a replay takes as is); the Buffer form
 * is decoded on first read. Hardly any consumer reads it, and decoding it for every record (a
 * Buffer and a hex pass) was about 5% of append's synchronous cost.
 */
class SealedRecord implements CheckedRecord {
  #leafHash: Buffer | undefined;

  constructor(
    readonly record: LedgerRecord,
    readonly offset: number,
    readonly length: number,
    readonly recordHash: Sha256,
  ) {}

  get leafHash(): Buffer {
    return (this.#leafHash ??= Buffer.from(this.recordHash.slice('sha256:'.length), 'hex'));
  }
}

interface Sealed {
  checked: CheckedRecord;
  /** The leaf hash as `sha256:…`, for the receipt. */
  hash: Sha256;
  line: Buffer;
  /** For an in-band checkpoint: a note over every record through this one, for the sidecar. */
  sidecarNote?: string;
  resolve: (receipt: Receipt) => void;
  reject: (error: Error) => void;
}

/**
 * An event whose data the caller already holds as JCS text, exactly `canonicalJson(event.data)`
 * (its action hashed, its claims signed), so the writer does not serialize it again. Taken as
 * given only for a `prechecked` append: the caller vouches for the text as for the event.
 */
export interface SerializedEvent {
  event: LedgerEvent;
  dataJson: string;
}

const DEFAULT_CHECKPOINT_RECORDS = 1000;
/** The most the envelope (v, seq, ts, stream, prevHash, type keys) adds to an event's JCS size. */
const ENVELOPE_BYTES = 512;
const DEFAULT_CHECKPOINT_MS = 1000;
/**
 * Lines are encoded into buffers (encodeLine) that start small and double up to the largest size,
 * some 1,800 records of ~580 bytes: a hook process writes a handful of records and exits, and a
 * first buffer of 1 MiB cost it about 30 ms of CPU (most of it garbage collection, in its
 * profile), while a busy writer reaches the largest size within a few batches.
 */
const FIRST_ARENA_BYTES = 1 << 16;
const LARGEST_ARENA_BYTES = 1 << 20;

/**
 * The only writer of a ledger file (DESIGN.md section 4).
 *
 * Appends are sealed synchronously (seq, ts, prevHash, canonical line, leaf hash) in call order,
 * queued, and group-committed: a batch goes out in one positional write followed by one
 * fdatasync, and only then are its appends acknowledged. Commits are pipelined: up to two are in
 * flight, so while one batch's fdatasync runs, the clients it does not hold up seal the next one;
 * writes happen in order and acknowledgements too. A failed write or sync poisons the writer for
 * good, rejecting every commit after it; recovery is a reopen. The limits on commits in flight and
 * batch size (ledger-scan.ts) are also what bounds the damage a power loss can leave, which the
 * opening scan relies on to tell it from corruption: keep them there.
 */
export class LedgerWriter {
  private readonly fs: LedgerFs;
  private readonly now: () => number;
  private readonly tree: CompactRange;
  private queue: Sealed[] = [];
  private pumpScheduled = false;
  private commitsInFlight = 0;
  /**
   * The previous commit's write (resolving with its failure, if it failed) and its settling, which
   * the next commit's write and acknowledgements wait for.
   */
  private lastWritten: Promise<unknown> = Promise.resolve(undefined);
  private lastSettled: Promise<void> = Promise.resolve();
  private sidecarWrite: Promise<void> = Promise.resolve();
  private pendingSidecarNote: string | undefined;
  private poisonedBy: Error | undefined;
  /** Set once: closing a descriptor twice could close whatever file reused its number meanwhile. */
  private fileClosed: Promise<void> | undefined;
  private lockReleased: Promise<void> | undefined;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private recordsSinceCheckpoint = 0;
  /** Where our writes end and the last line written, for fencing. */
  private writtenSize: number;
  private writtenTail: Buffer;
  private nextOffset: number;
  private nextSeq: number;
  private headHash: string;
  /** What a resume point needs that the chain checker knew when the writer took over. */
  private genesisKeys: { name: string; publicKey: string }[];
  private lastCheckpoint: { seq: number; size: number; note: string } | undefined;
  private checkpoints: number;
  private lastTimestampMs = Number.NaN;
  private lastTimestamp = '';
  /** Where sealed lines are encoded (encodeLine). */
  private arena: Buffer = Buffer.allocUnsafe(0);
  private arenaUsed = 0;

  private constructor(
    readonly path: string,
    readonly origin: string,
    private readonly key: SigningKey,
    private readonly fd: number,
    private readonly lock: WriterLock,
    checker: ChainChecker,
    size: number,
    private readonly options: OpenLedgerOptions,
  ) {
    this.fs = options.fs ?? nodeLedgerFs;
    this.now = options.now ?? Date.now;
    this.tree = checker.tree;
    this.writtenSize = size;
    this.nextOffset = size;
    this.writtenTail = checker.headLine ?? Buffer.alloc(0);
    this.nextSeq = checker.size;
    this.headHash = checker.headHash;
    const lastCheckpointSeq = checker.lastCheckpoint?.seq;
    this.recordsSinceCheckpoint = lastCheckpointSeq === undefined ? checker.size : checker.size - lastCheckpointSeq - 1;
    this.genesisKeys = checker.trustedKeys.map((trusted) => ({ name: trusted.name, publicKey: trusted.publicKey.toString('base64') }));
    this.lastCheckpoint = checker.lastCheckpoint;
    this.checkpoints = checker.checkpoints;
  }

  /**
   * Starts timed checkpoints once the ledger is open. Never earlier: a checkpoint appended during
   * recovery would land after the torn bytes, trip the fence and poison the writer.
   */
  private startCheckpointTimer(): void {
    const everyMs = this.options.checkpointEveryMs ?? DEFAULT_CHECKPOINT_MS;
    if (everyMs <= 0) return;
    this.timer = setInterval(() => this.checkpointIfNew(), everyMs);
    this.timer.unref();
  }

  /**
   * Opens (creating, or recovering a torn tail) and locks the ledger at `options.path`. A failure
   * once the lock is held gives the file and the lock back and throws: `ledger_corrupt` and
   * `key_mismatch` as found, any I/O failure as `ledger_unavailable`.
   */
  static async open(options: OpenLedgerOptions): Promise<LedgerWriter> {
    const fs = options.fs ?? nodeLedgerFs;
    const path = options.path;
    await ensureDirectory(fs, dirname(path));
    let writer: LedgerWriter | undefined;
    const lock = await acquireWriterLock(path, (error) => writer?.poison(new SvcError('ledger_unavailable', `writer lock compromised: ${error.message}`)));
    let fd: number | undefined;
    try {
      const scan = await scanForOpening(path, options);
      if (scan.kind === 'corrupt') throw new SvcError('ledger_corrupt', `${path}: refusing to open: ${scan.defect.code} at seq ${scan.defect.seq ?? '?'}, byte offset ${scan.defect.offset ?? '?'}: ${scan.defect.message}`);
      if (scan.kind === 'valid' && scan.checker.size > 0 && !scan.checker.listsKey(options.key.name, options.key.publicKey)) {
        throw new SvcError('key_mismatch', `${path}: the ledger key ${options.key.name} is not listed in this ledger's genesis; use the key that created it`);
      }
      fd = await fs.open(path, scan.kind === 'missing' ? 'w+' : 'r+');
      if (scan.kind === 'missing' || scan.checker.size === 0) {
        // Even a torn genesis is kept: quarantined before the new genesis replaces it.
        const torn = scan.kind === 'valid' ? scan.tornTail : undefined;
        const quarantined = torn && (await quarantine(fs, path, torn, options));
        await fs.ftruncate(fd, 0);
        const origin = options.origin ?? `svc.local/${randomBytes(8).toString('hex')}`;
        writer = new LedgerWriter(path, origin, options.key, fd, lock, new ChainChecker(), 0, options);
        await writer.writeGenesis();
        if (torn && quarantined) await writer.recordRecovery(torn, quarantined);
      } else {
        writer = new LedgerWriter(path, scan.checker.origin ?? '', options.key, fd, lock, scan.checker, scan.validBytes, options);
        if (scan.tornTail) await writer.recoverTornTail(scan.tornTail);
        else await writer.restoreSidecar(scan.sidecarSize);
      }
      // A sidecar write that failed poisoned the writer without rejecting any append.
      await writer.drain();
      if (writer.poisonedBy) throw writer.poisonedBy;
      writer.startCheckpointTimer();
      return writer;
    } catch (error) {
      const reason = error instanceof SvcError ? error : new SvcError('ledger_unavailable', `${path}: opening failed: ${(error as Error).message}`, { cause: error });
      // Once a writer exists it owns the file and the lock: poisoned and closed, it gives both back.
      if (writer) {
        writer.poison(reason);
        await writer.close();
      } else if (fd !== undefined) {
        await fs.close(fd).catch(() => undefined);
      }
      await lock.release();
      throw reason;
    }
  }

  /**
   * The genesis and the directory entry must be durable before anything can be acknowledged:
   * without the directory sync a power loss could drop the whole file after acknowledgements.
   */
  private async writeGenesis(): Promise<void> {
    await this.append({ type: 'ledger.genesis', stream: 'ledger', data: { origin: this.origin, format: LEDGER_FORMAT, keys: [publicKeyInfo(this.key)] } });
    await this.fs.fsyncDirectory(dirname(this.path));
  }

  get size(): number {
    return this.nextSeq;
  }

  /**
   * The seqs the events of an append of `count` events made now will get. Checkpoints fall every
   * N records wherever a batch splits (so the file does not depend on batching), and a caller that
   * must name a record's seq inside that record's own batch (an ActionPass names its decision)
   * asks here first; nothing can be sealed in between, since sealing is synchronous.
   */
  nextEventSeqs(count: number): number[] {
    const every = this.options.checkpointEveryRecords ?? DEFAULT_CHECKPOINT_RECORDS;
    const seqs: number[] = [];
    let seq = this.nextSeq;
    let sinceCheckpoint = this.recordsSinceCheckpoint;
    for (let index = 0; index < count; index += 1) {
      if (every > 0 && sinceCheckpoint >= every) {
        seq += 1;
        sinceCheckpoint = 0;
      }
      seqs.push(seq);
      seq += 1;
      sinceCheckpoint += 1;
    }
    return seqs;
  }

  private checkpointDue(): boolean {
    const every = this.options.checkpointEveryRecords ?? DEFAULT_CHECKPOINT_RECORDS;
    return every > 0 && this.recordsSinceCheckpoint >= every;
  }

  get poisoned(): Error | undefined {
    return this.poisonedBy;
  }

  /**
   * Appends one event; resolves once it is durable. appendAll for one event, without its arrays:
   * this is the call every client of a busy writer makes, once per record.
   */
  append(event: LedgerEvent): Promise<Receipt> {
    const unavailable = this.unavailable();
    if (unavailable) return Promise.reject(unavailable);
    const prepared = this.prepare(event, false);
    if (prepared instanceof SvcError) return Promise.reject(prepared);
    if (this.checkpointDue()) this.sealCheckpoint();
    const receipt = this.seal(prepared.event, prepared.dataJson);
    this.scheduleFlush();
    return receipt;
  }

  /**
   * Appends events in order; each promise resolves once its record is durable. Every event is
   * checked against the catalogue first, unless the caller built it from input it already checked
   * at least as strictly (`prechecked`: the enforcement deciders, whose tests hold every event they
   * emit to the catalogue); a verifier re-checks every record anyway.
   */
  appendBatch(events: readonly (LedgerEvent | SerializedEvent)[], options: { prechecked?: boolean } = {}): Promise<Receipt[]> {
    return Promise.all(this.appendAll(events, options.prechecked === true));
  }

  private appendAll(events: readonly (LedgerEvent | SerializedEvent)[], prechecked = false): Promise<Receipt>[] {
    const unavailable = this.unavailable();
    if (unavailable) return events.map(() => Promise.reject(unavailable));
    // Validate and serialize everything first, so a batch is written whole or not at all.
    const prepared: { event: LedgerEvent; dataJson: string }[] = [];
    for (const item of events) {
      const one = this.prepare(item, prechecked);
      // A rejection of its own for each event, as each append would get.
      if (one instanceof SvcError) return events.map(() => Promise.reject(new SvcError(one.code, one.message)));
      prepared.push(one);
    }
    const receipts: Promise<Receipt>[] = [];
    for (const { event, dataJson } of prepared) {
      if (this.checkpointDue()) this.sealCheckpoint();
      receipts.push(this.seal(event, dataJson));
    }
    this.scheduleFlush();
    return receipts;
  }

  /** The checked event and its data's JCS text, or why it cannot be appended. */
  private prepare(item: LedgerEvent | SerializedEvent, prechecked: boolean): { event: LedgerEvent; dataJson: string } | SvcError {
    const serialized = 'dataJson' in item ? item : undefined;
    const event = serialized ? serialized.event : (item as LedgerEvent);
    if (event.type === 'ledger.genesis' && this.nextSeq > 0) return new SvcError('event_invalid', 'a ledger has exactly one genesis record');
    const checked = prechecked ? { ok: true as const, event } : checkEvent(event);
    if (!checked.ok) return new SvcError('event_invalid', `invalid ${event.type} event: ${checked.message}`);
    const dataJson = prechecked && serialized ? serialized.dataJson : canonicalJson(checked.event.data);
    // No UTF-16 code unit takes more than 3 bytes of UTF-8, so a text that short fits whatever it
    // holds: only a longer one needs a pass over it to count its bytes.
    if (3 * dataJson.length + ENVELOPE_BYTES > MAX_LINE_BYTES) {
      const bytes = Buffer.byteLength(dataJson) + ENVELOPE_BYTES;
      if (bytes > MAX_LINE_BYTES) return new SvcError('event_too_large', `a ${event.type} record of about ${bytes} bytes exceeds the ${MAX_LINE_BYTES}-byte line limit`);
    }
    return { event: checked.event, dataJson };
  }

  /**
   * Assigns seq, ts and prevHash and writes the line. The envelope's keys (data, prevHash, seq,
   * stream, ts, type, v) are already in JCS order and its values need no escaping (they match
   * the catalogue's patterns), so the canonical line is the canonical data inside a template.
   */
  private seal(event: LedgerEvent, dataJson: string, sidecar = false): Promise<Receipt> {
    const seq = this.nextSeq;
    const ts = this.timestamp();
    const prevHash = this.headHash;
    const record = { v: 0, seq, ts, stream: event.stream, prevHash, type: event.type, data: event.data } as LedgerRecord;
    const line = this.encodeLine(`{"data":${dataJson},"prevHash":"${prevHash}","seq":${seq},"stream":"${event.stream}","ts":"${ts}","type":"${event.type}","v":0}\n`);
    // The digest as hex first: the receipt and the next prevHash are that text, the tree decodes
    // it in place, and the record's leafHash Buffer is decoded only if someone reads it; the
    // Buffer-first way encoded a latin1 string into a Buffer and then that Buffer into hex.
    const leafHex = hashLineLeafHex(line);
    this.tree.appendHex(leafHex);
    const hash: Sha256 = `sha256:${leafHex}`;
    this.headHash = hash;
    const checked = new SealedRecord(record, this.nextOffset, line.length, hash);
    this.options.onSealed?.(checked);
    this.nextOffset += line.length;
    this.nextSeq += 1;
    this.recordsSinceCheckpoint = record.type === 'ledger.checkpoint' ? 0 : this.recordsSinceCheckpoint + 1;
    if (record.type === 'ledger.genesis') this.genesisKeys = record.data.keys.map((entry) => ({ name: entry.name, publicKey: entry.publicKey }));
    if (record.type === 'ledger.checkpoint') {
      this.lastCheckpoint = { seq, size: record.data.size, note: record.data.note };
      this.checkpoints += 1;
    }
    const sidecarNote = sidecar ? signCheckpoint(this.key, this.origin, this.nextSeq, this.tree.root()) : undefined;
    // Every Sealed gets the same fields (sidecarNote mostly undefined): one object shape, and no
    // spread of a conditional object, which V8 copies property by property, once per record.
    return new Promise<Receipt>((resolve, reject) => {
      this.queue.push({ checked, hash, line, sidecarNote, resolve, reject });
    });
  }

  /**
   * The line's UTF-8 bytes, written after the previous line in the current arena. Buffer.from
   * would measure the text's UTF-8 length in one pass and encode it in a second, and take a
   * slice of node's small pool, a fresh 8 KiB one every dozen records; written in place, the
   * lines of a batch also lie one after another, so the commit writes them without a concat.
   * An arena is never written over: lines in it may still be queued, in flight or the fence's
   * tail, so a full one is left to them and a new one taken.
   */
  private encodeLine(text: string): Buffer {
    // No UTF-16 code unit takes more than 3 bytes of UTF-8, so this much room holds any text.
    const most = 3 * text.length;
    if (most > this.arena.length - this.arenaUsed) {
      const size = this.arena.length === 0 ? FIRST_ARENA_BYTES : Math.min(2 * this.arena.length, LARGEST_ARENA_BYTES);
      this.arena = Buffer.allocUnsafe(Math.max(size, most));
      this.arenaUsed = 0;
    }
    const start = this.arenaUsed;
    this.arenaUsed += this.arena.write(text, start, 'utf8');
    return this.arena.subarray(start, this.arenaUsed);
  }

  /** `ts` of a record sealed now: the records of one burst share a millisecond, and its text. */
  private timestamp(): string {
    const ms = this.now();
    if (ms !== this.lastTimestampMs) {
      this.lastTimestamp = new Date(ms).toISOString();
      this.lastTimestampMs = ms;
    }
    return this.lastTimestamp;
  }

  /**
   * An in-band checkpoint covers exactly the records before it, signed over their Merkle root.
   * A record cannot sign itself, so the sidecar gets a second note over everything through the
   * checkpoint record: removing the final checkpoint line is then detectable too.
   */
  private sealCheckpoint(): void {
    const size = this.nextSeq;
    const root = this.tree.root();
    const note = signCheckpoint(this.key, this.origin, size, root);
    const data = { note, root: root.toString('base64'), size };
    void this.seal({ type: 'ledger.checkpoint', stream: 'ledger', data }, canonicalJson(data), true).catch(() => undefined);
  }

  private checkpointIfNew(): void {
    if (this.recordsSinceCheckpoint === 0 || this.unavailable()) return;
    this.sealCheckpoint();
    this.scheduleFlush();
  }

  /** Commits once the current burst of appends has been sealed (a microtask later). */
  private scheduleFlush(): void {
    if (this.pumpScheduled || this.queue.length === 0) return;
    this.pumpScheduled = true;
    queueMicrotask(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0 && this.commitsInFlight < MAX_COMMITS_IN_FLIGHT && !this.poisonedBy) {
      this.commitsInFlight += 1;
      const settled = this.commit(this.takeBatch());
      this.lastSettled = settled;
      void settled.then(() => {
        this.commitsInFlight -= 1;
        if (this.poisonedBy && this.commitsInFlight === 0) void this.closeFile().catch(() => undefined);
        this.pump();
      });
    }
  }

  /** The oldest queued records, up to MAX_BATCH_RECORDS and MAX_BATCH_BYTES (so a torn tail after power loss stays bounded). */
  private takeBatch(): Sealed[] {
    let bytes = 0;
    let count = 0;
    while (count < this.queue.length && count < MAX_BATCH_RECORDS && (count === 0 || bytes + (this.queue[count] as Sealed).line.length <= MAX_BATCH_BYTES)) {
      bytes += (this.queue[count] as Sealed).line.length;
      count += 1;
    }
    return this.queue.splice(0, count);
  }

  /**
   * Writes after the previous commit's write, syncs, and settles after the previous commit
   * settled: a batch is acknowledged only when it is durable and every batch before it was
   * acknowledged. Any failure, here or earlier, rejects the batch.
   */
  private async commit(batch: Sealed[]): Promise<void> {
    const previousWritten = this.lastWritten;
    const previousSettled = this.lastSettled;
    let markWritten = (_failure: unknown): void => undefined;
    this.lastWritten = new Promise((resolve) => (markWritten = resolve));
    const bytes = batchBytes(batch);
    let failure: unknown;
    try {
      // The earlier commit poisons the writer only once it settles, which may be after this write.
      // But after a failed write the end of the file is unknown (part of that batch may be there,
      // or none of it), so nothing may follow it: this batch would land where those seqs belong.
      const earlierFailure = await previousWritten;
      if (earlierFailure !== undefined) throw earlierFailure;
      await this.checkFence();
      if (this.poisonedBy) throw this.poisonedBy;
      await this.fs.write(this.fd, bytes, this.writtenSize);
      this.writtenSize += bytes.length;
      this.writtenTail = (batch[batch.length - 1] as Sealed).line.subarray(0, -1);
    } catch (error) {
      failure = error;
    } finally {
      markWritten(failure);
    }
    if (failure === undefined) {
      try {
        await this.fs.fdatasync(this.fd);
      } catch (error) {
        failure = error;
      }
    }
    await previousSettled;
    if (failure === undefined && this.poisonedBy) failure = this.poisonedBy;
    if (failure !== undefined) {
      const cause = failure instanceof Error ? failure : new Error(String(failure));
      const reason = cause instanceof SvcError ? cause : new SvcError('ledger_unavailable', `ledger write failed, the writer is poisoned until restart: ${cause.message}`);
      for (const item of batch) item.reject(reason);
      this.poison(reason);
      return;
    }
    let lastNote: string | undefined;
    for (const item of batch) {
      const record = item.checked.record;
      if (item.sidecarNote !== undefined) lastNote = item.sidecarNote;
      item.resolve({ seq: record.seq, hash: item.hash, ts: record.ts, type: record.type });
    }
    this.options.onDurable?.(batch.map((item) => item.checked));
    if (lastNote !== undefined) this.writeSidecar(lastNote);
  }

  /**
   * Stops writing if anything else changed the file since our last batch. One read does both
   * checks: asking for one byte more than our last line and its newline returns exactly those
   * bytes only if the file still ends where we left it.
   */
  private async checkFence(): Promise<void> {
    if (this.writtenSize === 0) {
      if ((await this.fs.read(this.fd, Buffer.alloc(1), 0)) !== 0) throw new SvcError('ledger_fenced', `${this.path} was written by another process before this writer's genesis`);
      return;
    }
    const expected = this.writtenTail.length + 1;
    const tail = Buffer.allocUnsafe(expected + 1);
    const read = await this.fs.read(this.fd, tail, this.writtenSize - expected);
    const intact = read === expected && tail[expected - 1] === 10 && tail.subarray(0, expected - 1).equals(this.writtenTail);
    if (!intact) throw new SvcError('ledger_fenced', `${this.path} changed under this writer since byte ${this.writtenSize}; another process wrote to it, so this writer stops`);
  }

  /** The sidecar `<ledger>.checkpoint` holds a note over every record through the newest durable in-band checkpoint. */
  private writeSidecar(note: string): void {
    this.pendingSidecarNote = note;
    this.sidecarWrite = this.sidecarWrite.then(async () => {
      const latest = this.pendingSidecarNote;
      if (latest === undefined || this.poisonedBy) return;
      this.pendingSidecarNote = undefined;
      try {
        await writeFileDurably(this.fs, `${this.path}.checkpoint`, Buffer.from(latest, 'utf8'));
      } catch (error) {
        this.poison(new SvcError('ledger_unavailable', `checkpoint sidecar write failed: ${(error as Error).message}`));
      }
    });
  }

  /**
   * A crash between a checkpoint becoming durable and its sidecar's rename leaves the sidecar
   * missing or behind. Once the records on disk are synced, a note over all of them restores it.
   * That sync also makes whatever an earlier process wrote durable before this one writes, which
   * the power-loss window of ledger-scan.ts (MAX_UNSYNCED_BYTES) relies on; and the sidecar's
   * directory sync makes the ledger's own entry durable if the creating process failed before it.
   */
  private async restoreSidecar(sidecarSize: number | undefined): Promise<void> {
    if (sidecarSize !== undefined && sidecarSize >= this.nextSeq) return;
    await this.fs.fdatasync(this.fd);
    this.writeSidecar(signCheckpoint(this.key, this.origin, this.nextSeq, this.tree.root()));
    await this.sidecarWrite;
  }

  /** Quarantine first, then truncate: the torn bytes exist somewhere durable at every moment. */
  private async recoverTornTail(torn: TornTail): Promise<void> {
    const quarantined = await quarantine(this.fs, this.path, torn, this.options);
    await this.fs.ftruncate(this.fd, torn.offset);
    await this.fs.fsync(this.fd);
    await this.recordRecovery(torn, quarantined);
  }

  private async recordRecovery(torn: TornTail, quarantineFile: string): Promise<void> {
    await this.append({ type: 'ledger.recovered', stream: 'ledger', data: { truncatedBytes: torn.bytes.length, quarantineFile, reason: torn.reason } });
  }

  private unavailable(): Error | undefined {
    if (this.poisonedBy) return this.poisonedBy;
    if (this.closed) return new SvcError('ledger_closed', `${this.path} is closed`);
    return undefined;
  }

  /**
   * Rejects everything pending and after; only a reopen (which recovers from disk) writes again.
   * The file is closed once no commit is in flight (a commit may still be syncing).
   */
  private poison(error: Error): void {
    if (this.poisonedBy) return;
    this.poisonedBy = error;
    for (const item of this.queue.splice(0)) item.reject(error);
    if (this.timer) clearInterval(this.timer);
    if (this.commitsInFlight === 0) void this.closeFile().catch(() => undefined);
    this.lockReleased = this.lock.release();
  }

  private closeFile(): Promise<void> {
    return (this.fileClosed ??= this.fs.close(this.fd));
  }

  /** Waits until everything appended so far is durable (or rejected). */
  async drain(): Promise<void> {
    while (this.commitsInFlight > 0 || (this.queue.length > 0 && !this.poisonedBy)) {
      await (this.commitsInFlight > 0 ? this.lastSettled : Promise.resolve());
    }
    await this.sidecarWrite;
  }

  /** Clean shutdown: a final checkpoint if there are new records, then unlock. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.timer) clearInterval(this.timer);
    if (!this.poisonedBy && this.recordsSinceCheckpoint > 0) {
      this.sealCheckpoint();
      this.scheduleFlush();
    }
    await this.drain();
    this.closed = true;
    if (this.poisonedBy) {
      // With no commit in flight the file is closed (or closing); once both are given back, a reopen can start at once.
      await this.closeFile().catch(() => undefined);
      await this.lockReleased;
      return;
    }
    // A resume point is a cache: failing to write one costs the next opening a full read, nothing more.
    await this.saveResumePoint().catch(() => undefined);
    await this.closeFile();
    await this.lock.release();
  }

  /** Under the lock, with everything durable: where the next writer can start without reading the file. */
  private async saveResumePoint(): Promise<void> {
    const projection = this.options.projection;
    if (!projection || this.nextSeq === 0) return;
    await writeResumePoint(this.path, {
      bytes: this.writtenSize,
      chain: {
        size: this.nextSeq,
        headHash: this.headHash,
        headLine: this.writtenTail.toString('utf8'),
        origin: this.origin,
        keys: this.genesisKeys,
        tree: this.tree.snapshot(),
        ...(this.lastCheckpoint && { lastCheckpoint: this.lastCheckpoint }),
        checkpoints: this.checkpoints,
      },
      projection: projection.save(),
    });
  }
}

/**
 * The bytes of a batch's lines in order. Lines sealed one after another into one arena
 * (encodeLine) are already that, side by side: a view of them spares a copy; only a batch that
 * spans two arenas is concatenated.
 */
function batchBytes(batch: readonly Sealed[]): Buffer {
  const first = (batch[0] as Sealed).line;
  const last = (batch[batch.length - 1] as Sealed).line;
  if (batch.length === 1) return first;
  let total = 0;
  for (const item of batch) total += item.line.length;
  // Lines of one arena never overlap and lie in seal order, so one that spans exactly their total holds them all.
  if (first.buffer === last.buffer && last.byteOffset + last.length - first.byteOffset === total) return Buffer.from(first.buffer, first.byteOffset, total);
  return Buffer.concat(batch.map((item) => item.line), total);
}

/**
 * The opening scan: from the resume point when asked for and usable, else (or when the file past
 * the point does not check out) from the genesis, so anything a resume cannot explain gets the
 * full scan's verdict. The projection is started over before each attempt.
 */
async function scanForOpening(path: string, options: OpenLedgerOptions): Promise<LedgerScan> {
  const projection = options.projection;
  const onRecord = projection && ((checked: CheckedRecord) => projection.apply(checked));
  if (options.resume && projection) {
    const size = await stat(path).then((found) => found.size, () => undefined);
    const point = size === undefined ? undefined : await readResumePoint(path, size);
    if (point && projection.start(point.projection)) {
      const scan = await scanLedger(path, { from: point, onRecord });
      if (scan.kind === 'valid') return scan;
    }
  }
  projection?.start(undefined);
  return scanLedger(path, { ...(onRecord && { onRecord }) });
}

/** Copies torn bytes to `<ledger dir>/quarantine/`; returns the path relative to the ledger's directory. */
async function quarantine(fs: LedgerFs, path: string, torn: TornTail, options: OpenLedgerOptions): Promise<string> {
  const quarantineDir = options.quarantineDir ?? join(dirname(path), 'quarantine');
  await ensureDirectory(fs, quarantineDir);
  const name = `${basename(path)}.${torn.offset}.${new Date((options.now ?? Date.now)()).toISOString().replace(/[:.]/g, '-')}.torn`;
  await writeFileDurably(fs, join(quarantineDir, name), torn.bytes);
  return join(basename(quarantineDir), name);
}

/** Creates missing directories and syncs each new entry into its parent. */
async function ensureDirectory(fs: LedgerFs, path: string): Promise<void> {
  const created = await fs.mkdir(path);
  if (created === undefined) return;
  for (let dir = path; ; dir = dirname(dir)) {
    await fs.fsyncDirectory(dirname(dir));
    if (dir === created || dirname(dir) === dir) break;
  }
}

/** Temp file, fsync, rename, fsync of the directory: the file is either old or new after a crash. */
async function writeFileDurably(fs: LedgerFs, path: string, bytes: Buffer): Promise<void> {
  const temp = `${path}.tmp-${process.pid}`;
  const fd = await fs.open(temp, 'w', 0o600);
  try {
    await fs.write(fd, bytes, 0);
    await fs.fsync(fd);
  } finally {
    await fs.close(fd);
  }
  await fs.rename(temp, path);
  await fs.fsyncDirectory(dirname(path));
}
