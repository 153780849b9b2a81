import { isAscii, isUtf8 } from 'node:buffer';
import { isCanonicalText, SHA256_PATTERN, toSha256 } from './canonical.js';
import { isPlainCanonicalForm } from './canonical-form.js';
import { checkParsedRecord, checkRecord, type LedgerRecord, type RecordCheck } from './catalogue.js';
import { verifyCheckpoint } from './checkpoint.js';
import type { Defect } from './defects.js';
import { envelopePrevHash, envelopeTypeIs, readEnvelopeFields } from './envelope-fields.js';
import type { RawLine } from './line-reader.js';
import { CompactRange, hashLeaf, hashLeafHex } from './merkle.js';

export const ZERO_HASH = `sha256:${'0'.repeat(64)}`;

/** A line that passed every check, with its RFC 6962 leaf hash. */
export interface CheckedRecord {
  record: LedgerRecord;
  offset: number;
  /** Byte length of the line including its `\n`. */
  length: number;
  leafHash: Buffer;
  /**
   * The leaf hash as `sha256:` and 64 hex digits, the text the next record's prevHash names it by,
   * where the reader holds that text already; otherwise the replay makes it from `leafHash`.
   */
  recordHash?: string;
}

export interface TrustedKey {
  name: string;
  publicKey: Buffer;
}

/** What a checkpoint note is checked against: the ledger's origin and keys, and a key pinned from outside. */
export interface LedgerIdentity {
  origin: string | undefined;
  keys: readonly TrustedKey[];
  pinnedKey?: Buffer;
}

/** Verifies a checkpoint note against a ledger's identity and its Merkle root at `size`. */
export function verifyLedgerNote(identity: LedgerIdentity, note: string, size: number, root: Buffer): Omit<Defect, 'seq' | 'offset'> | undefined {
  const pinned = identity.pinnedKey;
  const signers = pinned === undefined ? identity.keys : identity.keys.filter((key) => key.publicKey.equals(pinned));
  const verified = verifyCheckpoint(note, signers.map((key) => ({ name: key.name, publicKey32: key.publicKey })));
  if (!verified.ok) {
    const code = verified.code === 'key_untrusted' ? 'key_untrusted' : 'checkpoint_signature_invalid';
    return { code, message: verified.message };
  }
  const checkpoint = verified.checkpoint;
  if (checkpoint.origin !== identity.origin) return { code: 'checkpoint_signature_invalid', message: `checkpoint origin ${checkpoint.origin} is not the ledger origin ${identity.origin ?? '(none)'}` };
  if (checkpoint.size !== size) return { code: 'root_mismatch', message: `checkpoint covers ${checkpoint.size} records, expected ${size}` };
  if (!checkpoint.root.equals(root)) return { code: 'root_mismatch', message: `checkpoint root ${checkpoint.root.toString('base64')} differs from the Merkle root ${root.toString('base64')} of ${size} records` };
  return undefined;
}

/**
 * Checks ledger lines in order, exactly as DESIGN.md section 4 defines a valid ledger: each line
 * `\n`-terminated, UTF-8, the JCS form of its own parse, a record of the catalogue, seq
 * contiguous from 0, chained by leaf hash, record 0 a genesis, and every in-band checkpoint
 * signed by a genesis key over the Merkle root of the records before it.
 *
 * The writer's recovery and `verify-export` both use this class, so a ledger the writer accepts
 * is exactly a ledger the verifier accepts.
 */
/** Where a checker stands after a prefix of a ledger, as data (see `ChainChecker.snapshot`). */
export interface ChainSnapshot {
  size: number;
  headHash: string;
  /** The last accepted line, without its `\n`. */
  headLine: string;
  origin: string;
  keys: { name: string; publicKey: string }[];
  tree: { size: number; subtrees: string[] };
  lastCheckpoint?: { seq: number; size: number; note: string };
  checkpoints: number;
}

/**
 * What `checkDeferringRecord` found wrong with a line. `recordChecked` is false when the line's
 * record checks (JSON, catalogue) were left to the caller: a defect those find in the same line
 * comes before this one, as `check` runs them first.
 */
export interface DeferredCheckDefect {
  defect: Defect;
  recordChecked: boolean;
}

export interface ChainCheckerOptions {
  /**
   * Hand out accepted records as JSON.parse made them (`checkParsedRecord`) rather than as the
   * catalogue's copies: same verdicts and values, keys in the line's order. It skips a copy of
   * every record, and a process that reads only valid records never builds the catalogue's zod
   * schemas (a hook process reads a few as it opens the ledger).
   */
  parsedRecords?: boolean;
}

export class ChainChecker {
  tree = new CompactRange();
  private expectedSeq = 0;
  private previousHash = ZERO_HASH;
  private keys: TrustedKey[] = [];
  private originName: string | undefined;
  private lastLine: Buffer | undefined;
  lastCheckpoint: { seq: number; size: number; note: string } | undefined;
  /** In-band checkpoints accepted so far. */
  checkpoints = 0;

  private readonly checkParsed: (value: unknown) => RecordCheck;

  /** `pinnedKey`: the key an outside party trusts; without it the genesis keys are trusted. */
  constructor(
    private readonly pinnedKey?: Buffer,
    options: ChainCheckerOptions = {},
  ) {
    this.checkParsed = options.parsedRecords ? checkParsedRecord : checkRecord;
  }

  get size(): number {
    return this.expectedSeq;
  }

  get origin(): string | undefined {
    return this.originName;
  }

  get trustedKeys(): readonly TrustedKey[] {
    return this.keys;
  }

  /** Hash of the last accepted record, the `prevHash` of the next. */
  get headHash(): string {
    return this.previousHash;
  }

  /** Bytes of the last accepted line (without `\n`), for the writer's fencing check. */
  get headLine(): Buffer | undefined {
    return this.lastLine;
  }

  check(line: RawLine): CheckedRecord | Defect {
    const seq = this.expectedSeq;
    const at = { seq, offset: line.offset };
    if (line.oversized) return { code: 'record_invalid', message: `line is longer than the ${line.bytes.length - 1}-byte limit`, ...at };
    if (!line.terminated) return { code: 'torn_line', message: 'last line has no terminating newline', ...at };
    const bytes = line.bytes;
    const parsed = parseRecordLine(bytes, this.checkParsed);
    if ('code' in parsed) return { ...parsed, code: parsed.code === 'record_invalid' && seq === 0 ? 'genesis_invalid' : parsed.code, ...at };
    const record = parsed.record;
    if (record.seq !== seq) return { code: 'seq_gap', message: `expected seq ${seq}, found seq ${record.seq}`, ...at };
    if (record.prevHash !== this.previousHash) {
      return { code: 'chain_broken', message: `prevHash ${record.prevHash} does not match the hash of record ${seq - 1} (${this.previousHash})`, ...at };
    }
    const genesisDefect = seq === 0 ? this.acceptGenesis(record) : record.type === 'ledger.genesis' ? 'a second genesis record' : undefined;
    if (genesisDefect !== undefined) return { code: 'genesis_invalid', message: genesisDefect, ...at };
    if (seq === 0 && !this.genesisKeyPinned()) return { code: 'key_untrusted', message: 'the genesis record does not list the pinned public key', ...at };
    if (record.type === 'ledger.checkpoint') {
      const defect = this.checkInBandCheckpoint(record.data, seq);
      if (defect) return { ...defect, ...at };
    }
    const leafHash = this.accept(bytes);
    return { record, offset: line.offset, length: bytes.length + 1, leafHash, recordHash: this.previousHash };
  }

  /**
   * `check` for a reader that runs each line's record checks (valid JSON, a record of the
   * catalogue) itself, elsewhere: verification's replay thread parses every line anyway, so the
   * chain thread need not parse them again. A line of the plain shape of a record
   * (readEnvelopeFields) has its seq, its prevHash and its leaf hash checked from its bytes,
   * unparsed; any other line, the genesis and in-band checkpoints (whose data is checked here)
   * go through `check`.
   *
   * The caller must report a defect its record checks find in a line before any defect this
   * returns for a later line, and before one for the same line unless `recordChecked`: then the
   * verdict is `check`'s, line by line. Undefined: the line is accepted, as far as checked here.
   */
  checkDeferringRecord(line: RawLine): DeferredCheckDefect | undefined {
    const seq = this.expectedSeq;
    const bytes = line.bytes;
    // previousHash is always of the sha256 form (ZERO_HASH, toSha256, or a snapshot's, checked in fromSnapshot), as readEnvelopeFields requires.
    const fields = seq > 0 && line.terminated && !line.oversized ? readEnvelopeFields(bytes, this.previousHash) : undefined;
    if (fields === undefined || envelopeTypeIs(fields, 'ledger.genesis') || envelopeTypeIs(fields, 'ledger.checkpoint')) {
      const result = this.check(line);
      return isDefect(result) ? { defect: result, recordChecked: true } : undefined;
    }
    const at = { seq, offset: line.offset };
    if (fields.seq !== seq) return { defect: { code: 'seq_gap', message: `expected seq ${seq}, found seq ${fields.seq}`, ...at }, recordChecked: false };
    if (!fields.prevHashIsExpected) {
      return { defect: { code: 'chain_broken', message: `prevHash ${envelopePrevHash(fields)} does not match the hash of record ${seq - 1} (${this.previousHash})`, ...at }, recordChecked: false };
    }
    this.acceptUnhashed(bytes);
    return undefined;
  }

  /** Appends an accepted line (without its `\n`) to the chain and the tree; returns its leaf hash. */
  private accept(bytes: Buffer): Buffer {
    const leafHash = hashLeaf(bytes);
    this.tree.append(leafHash);
    this.previousHash = toSha256(leafHash);
    this.lastLine = bytes;
    this.expectedSeq += 1;
    return leafHash;
  }

  /**
   * `accept` for a caller with no use for the leaf hash as bytes: the hash is taken as hex, the
   * form the next record's prevHash has, so no digest Buffer is made and none is turned into hex.
   */
  private acceptUnhashed(bytes: Buffer): void {
    const leafHashHex = hashLeafHex(bytes);
    this.tree.appendHex(leafHashHex);
    this.previousHash = `sha256:${leafHashHex}`;
    this.lastLine = bytes;
    this.expectedSeq += 1;
  }

  /** The check once the input ends: a ledger without records has no genesis. */
  checkEnd(): Defect | undefined {
    if (this.expectedSeq > 0) return undefined;
    return { code: 'genesis_invalid', seq: 0, offset: 0, message: 'the ledger has no records: every ledger starts with a genesis record' };
  }

  /** Format and stream are already enforced by the catalogue; what is left is the record type. */
  private acceptGenesis(record: LedgerRecord): string | undefined {
    if (record.type !== 'ledger.genesis') return `record 0 must be ledger.genesis, found ${record.type}`;
    this.originName = record.data.origin;
    this.keys = record.data.keys.map((key) => ({ name: key.name, publicKey: Buffer.from(key.publicKey, 'base64') }));
    return undefined;
  }

  /** Whether the genesis lists this key, by name and public key. */
  listsKey(name: string, publicKey: Buffer): boolean {
    return this.keys.some((key) => key.name === name && key.publicKey.equals(publicKey));
  }

  /** Whether the genesis lists the pinned key (always true when nothing is pinned). */
  genesisKeyPinned(): boolean {
    const pinned = this.pinnedKey;
    return pinned === undefined || this.keys.some((key) => key.publicKey.equals(pinned));
  }

  /** This checker's position as data, so checking can resume there without reading the prefix again. */
  snapshot(): ChainSnapshot {
    if (this.originName === undefined || this.lastLine === undefined) throw new RangeError('a checker that has not accepted a genesis has nothing to resume');
    return {
      size: this.expectedSeq,
      headHash: this.previousHash,
      headLine: this.lastLine.toString('utf8'),
      origin: this.originName,
      keys: this.keys.map((key) => ({ name: key.name, publicKey: key.publicKey.toString('base64') })),
      tree: this.tree.snapshot(),
      ...(this.lastCheckpoint && { lastCheckpoint: this.lastCheckpoint }),
      checkpoints: this.checkpoints,
    };
  }

  /**
   * A checker positioned where `snapshot` was taken. It trusts the snapshot for the records before
   * that point; the caller must make sure the snapshot describes the file it goes on reading.
   */
  static fromSnapshot(snapshot: ChainSnapshot, options: ChainCheckerOptions = {}): ChainChecker {
    const checker = new ChainChecker(undefined, options);
    const tree = CompactRange.fromSnapshot(snapshot.tree);
    if (tree.size !== snapshot.size || snapshot.size < 1) throw new RangeError(`a snapshot of ${snapshot.size} records has a tree of ${tree.size}`);
    if (!SHA256_PATTERN.test(snapshot.headHash)) throw new RangeError(`a snapshot's head hash must be sha256:<64 lowercase hex>, not ${snapshot.headHash}`);
    checker.tree = tree;
    checker.expectedSeq = snapshot.size;
    checker.previousHash = snapshot.headHash;
    checker.lastLine = Buffer.from(snapshot.headLine, 'utf8');
    checker.originName = snapshot.origin;
    checker.keys = snapshot.keys.map((key) => ({ name: key.name, publicKey: Buffer.from(key.publicKey, 'base64') }));
    if (snapshot.lastCheckpoint) checker.lastCheckpoint = snapshot.lastCheckpoint;
    checker.checkpoints = snapshot.checkpoints;
    return checker;
  }

  get identity(): LedgerIdentity {
    return { origin: this.originName, keys: this.keys, ...(this.pinnedKey && { pinnedKey: this.pinnedKey }) };
  }

  /** Verifies a checkpoint note against this ledger's origin, keys and Merkle root at `size`. */
  verifyNote(note: string, size: number, root: Buffer): Omit<Defect, 'seq' | 'offset'> | undefined {
    return verifyLedgerNote(this.identity, note, size, root);
  }

  private checkInBandCheckpoint(data: { size: number; root: string; note: string }, seq: number): Omit<Defect, 'seq' | 'offset'> | undefined {
    if (data.size !== seq) return { code: 'root_mismatch', message: `in-band checkpoint at seq ${seq} claims size ${data.size}; it must cover exactly the ${seq} records before it` };
    const root = this.tree.root();
    if (data.root !== root.toString('base64')) return { code: 'root_mismatch', message: `in-band checkpoint root differs from the Merkle root of the ${seq} records before it` };
    const defect = this.verifyNote(data.note, seq, root);
    if (defect) return defect;
    this.lastCheckpoint = { seq, size: data.size, note: data.note };
    this.checkpoints += 1;
    return undefined;
  }
}

/**
 * The checks of one line on its own, before its place in the chain: UTF-8, JSON, the RFC 8785
 * canonical form of its own parse, a record of the catalogue.
 */
export function parseRecordLine(bytes: Buffer, check: (value: unknown) => RecordCheck = checkRecord): { record: LedgerRecord } | { code: 'not_canonical' | 'record_invalid'; message: string } {
  // Nearly every line is ASCII, which is also valid UTF-8 with the same text: decoded as latin1
  // (a copy, no UTF-8 decoding), and with no surrogates for the canonical-form scan to look for.
  const ascii = isAscii(bytes);
  if (!ascii && !isUtf8(bytes)) return { code: 'not_canonical', message: 'line is not valid UTF-8' };
  const text = ascii ? bytes.toString('latin1') : bytes.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { code: 'not_canonical', message: 'line is not JSON' };
  }
  // Nearly every line is shown canonical by reading its text; the rest are decided against their parse.
  if (!isPlainCanonicalForm(text, ascii) && !isCanonicalText(text, parsed)) return { code: 'not_canonical', message: 'line is not the RFC 8785 canonical form of its own parse' };
  const checked = check(parsed);
  if (!checked.ok) return { code: 'record_invalid', message: checked.message };
  return { record: checked.record };
}

export function isDefect(value: CheckedRecord | Defect): value is Defect {
  return 'code' in value;
}
