/**
 * An independent reference verifier for the tamper matrix. It predicts the first failure
 * `svc verify-export` must report (code, seq, byte offset, file) from docs/ledger-format.md
 * alone: section 2 (lines, leaf hashes, chain), 3 (catalogue), 6 (notes and checkpoints), 8.3
 * (DSSE envelope), 9 (order of checks) and 10.1 (equivalence).
 *
 * It shares no verification code with svc: JCS comes from the `canonicalize` package, records are
 * checked with the zod catalogue (`ledgerRecordSchema`, the declarative schema rather than svc's
 * hand-written checker, and `expectedStream`, the stream rule of 2.3), and hashes, Merkle roots,
 * signed notes and envelopes are computed here with node:crypto. Where the two disagree, one of
 * them does not follow the format.
 */
import { isUtf8 } from 'node:buffer';
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import canonicalize from 'canonicalize';
import { expectedStream, ledgerRecordSchema, type LedgerRecord } from '../../src/events/catalogue.js';
import type { DefectCode } from '../../src/events/defects.js';

/** What verification must report: exactly these members of the report's `defect`. */
export interface Expected {
  code: DefectCode;
  seq?: number;
  offset?: number;
  file?: string;
}

const MAX_LINE_BYTES = 1 << 20;
const ZERO_HASH = `sha256:${'0'.repeat(64)}`;

const sha256 = (...parts: Uint8Array[]): Buffer => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

/** Strict base64 (2.2, 6.1): the text is exactly the encoding of what it decodes to. */
function strictBase64(text: string, urlSafe = false): Buffer | undefined {
  const encoding = urlSafe ? 'base64url' : 'base64';
  const pattern = urlSafe ? /^[A-Za-z0-9_-]*=*$/ : /^[A-Za-z0-9+/]*=*$/;
  if (!pattern.test(text)) return undefined;
  const bytes = Buffer.from(text, encoding);
  const again = bytes.toString(encoding);
  // URL-safe base64 may leave out its padding (8.3).
  return again === text || (urlSafe && again === text.replace(/=+$/, '') && text.length % 4 === 0) ? bytes : undefined;
}

const keyObjects = new Map<string, KeyObject>();
function ed25519Verify(publicKey: Buffer, message: Uint8Array, signature: Uint8Array): boolean {
  const id = publicKey.toString('hex');
  let key = keyObjects.get(id);
  if (!key) {
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: publicKey.toString('base64url') }, format: 'jwk' });
    keyObjects.set(id, key);
  }
  return signature.length === 64 && verify(null, message, key, signature);
}

/** RFC 6962 / RFC 9162 Merkle tree hash of `leaves` (2.1.1), recursively. */
export function merkleRoot(leaves: readonly Buffer[]): Buffer {
  if (leaves.length === 0) return sha256();
  if (leaves.length === 1) return leaves[0] as Buffer;
  let split = 1;
  while (split * 2 < leaves.length) split *= 2;
  return sha256(Uint8Array.of(1), merkleRoot(leaves.slice(0, split)), merkleRoot(leaves.slice(split)));
}

interface GenesisKey {
  name: string;
  publicKey: Buffer;
}

/** C2SP key id (6.1): the first 4 bytes of SHA-256(name ‖ 0x0A ‖ 0x01 ‖ public key). */
export function keyId(name: string, publicKey: Buffer): Buffer {
  return sha256(Buffer.from(name, 'utf8'), Uint8Array.of(0x0a, 0x01), publicKey).subarray(0, 4);
}

type NoteCode = 'checkpoint_signature_invalid' | 'key_untrusted' | 'root_mismatch';

const noteVerdicts = new Map<string, NoteCode | undefined>();

/** A signed note checked against the ledger (6.1): the code of its first defect, if any. */
export function checkNote(note: string, trusted: readonly GenesisKey[], origin: string | undefined, size: number, root: Buffer): NoteCode | undefined {
  const memo = JSON.stringify([note, trusted.map((key) => [key.name, key.publicKey.toString('base64')]), origin, size, root.toString('base64')]);
  if (noteVerdicts.has(memo)) return noteVerdicts.get(memo);
  const verdict = checkNoteUncached(note, trusted, origin, size, root);
  noteVerdicts.set(memo, verdict);
  return verdict;
}

function checkNoteUncached(note: string, trusted: readonly GenesisKey[], origin: string | undefined, size: number, root: Buffer): NoteCode | undefined {
  const parsed = parseNote(note);
  if (!parsed) return 'checkpoint_signature_invalid';
  let verified = false;
  for (const line of parsed.signatures) {
    for (const key of trusted) {
      if (key.name !== line.name || !keyId(key.name, key.publicKey).equals(line.bytes.subarray(0, 4))) continue;
      if (!ed25519Verify(key.publicKey, Buffer.from(parsed.body, 'utf8'), line.bytes.subarray(4))) return 'checkpoint_signature_invalid';
      verified = true;
    }
  }
  if (!verified) return 'key_untrusted';
  if (parsed.origin !== origin) return 'checkpoint_signature_invalid';
  if (parsed.size !== size || !parsed.root.equals(root)) return 'root_mismatch';
  return undefined;
}

/** The parsing rules of 6.1; undefined for a note that cannot be parsed. */
function parseNote(note: string): { body: string; origin: string; size: number; root: Buffer; signatures: { name: string; bytes: Buffer }[] } | undefined {
  // A lone surrogate does not survive a round trip through UTF-8: the note is not well-formed Unicode.
  if (Buffer.byteLength(note, 'utf8') > 65_536 || Buffer.from(note, 'utf8').toString('utf8') !== note || /[\u0000-\u0009\u000b-\u001f]/.test(note) || !note.endsWith('\n')) return undefined;
  const split = note.lastIndexOf('\n\n');
  if (split < 0) return undefined;
  const body = note.slice(0, split + 1);
  const block = note.slice(split + 2);
  if (block.length === 0) return undefined;
  const signatures: { name: string; bytes: Buffer }[] = [];
  const lines = block.slice(0, -1).split('\n');
  if (lines.length > 100) return undefined;
  for (const line of lines) {
    if (!line.startsWith('\u2014 ')) return undefined;
    const rest = line.slice(2);
    const space = rest.indexOf(' ');
    if (space < 0) return undefined;
    const name = rest.slice(0, space);
    if (name.length === 0 || /[\s+\u0000-\u001f\u007f]/u.test(name)) return undefined;
    const encoded = rest.slice(space + 1);
    const bytes = encoded.length > 0 ? strictBase64(encoded) : undefined;
    if (!bytes || bytes.length < 5) return undefined;
    signatures.push({ name, bytes });
  }
  const [origin = '', sizeText = '', rootText = '', ...extensions] = body.slice(0, -1).split('\n');
  if (origin.length === 0 || !/^(0|[1-9][0-9]*)$/.test(sizeText) || !Number.isSafeInteger(Number(sizeText))) return undefined;
  const root = strictBase64(rootText);
  if (!root || root.length !== 32 || extensions.some((line) => line.length === 0)) return undefined;
  return { body, origin, size: Number(sizeText), root, signatures };
}

type StaticLine = { code: 'record_invalid' | 'not_canonical' | 'catalogue' } | { record: LedgerRecord };

const staticVerdicts = new Map<string, StaticLine>();

/** Checks 1 and 3 to 6 of 9.3, which depend on the line's bytes alone ('catalogue' = check 6 failed). */
function checkLineBytes(bytes: Buffer): StaticLine {
  if (bytes.length > MAX_LINE_BYTES) return { code: 'record_invalid' };
  const memo = bytes.toString('latin1');
  const known = staticVerdicts.get(memo);
  if (known) return known;
  const verdict = checkLineBytesUncached(bytes);
  staticVerdicts.set(memo, verdict);
  return verdict;
}

function checkLineBytesUncached(bytes: Buffer): StaticLine {
  if (!isUtf8(bytes)) return { code: 'not_canonical' };
  const text = bytes.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { code: 'not_canonical' };
  }
  let canonical: string | undefined;
  try {
    canonical = canonicalize(value);
  } catch {
    canonical = undefined;
  }
  if (canonical !== text) return { code: 'not_canonical' };
  const parsed = ledgerRecordSchema().safeParse(value);
  if (!parsed.success) return { code: 'catalogue' };
  const record = parsed.data as LedgerRecord;
  if (record.stream !== expectedStream(record)) return { code: 'catalogue' };
  return { record };
}

/**
 * The equivalence judgment of 10.1, over the state the records before an execution built: the
 * action's current pass, the open approvals and the approval each pass used up.
 */
class EquivalenceModel {
  private readonly passes = new Map<string, { passId: string; payloadHash: string; exp: number; approvalId?: string }>();
  private readonly approvals = new Map<string, { status: 'pending' | 'granted' | 'rejected'; approvedPayloadHash?: string; usedBy?: string }>();

  /** Whether `record` is an `execution.completed` whose pair is `violated`. */
  violated(record: LedgerRecord): boolean {
    if (record.type !== 'execution.completed') return false;
    const { actionId, passId, approvedPayloadHash, executedPayloadHash } = record.data;
    const pass = this.passes.get(actionId);
    if (!pass || pass.passId !== passId || executedPayloadHash !== approvedPayloadHash || approvedPayloadHash !== pass.payloadHash) return true;
    if (pass.approvalId === undefined) return false;
    const approval = this.approvals.get(pass.approvalId);
    return approval?.status !== 'granted' || approval.usedBy !== actionId || approval.approvedPayloadHash !== approvedPayloadHash;
  }

  apply(record: LedgerRecord): void {
    // Passes an hour past their expiry are forgotten at every 4096th record (section 7).
    if (record.seq % 4096 === 0) for (const [actionId, pass] of this.passes) if (pass.exp * 1000 + 3_600_000 < Date.parse(record.ts)) this.passes.delete(actionId);
    switch (record.type) {
      case 'policy.decided':
      case 'execution.completed':
        this.passes.delete(record.data.actionId);
        return;
      case 'actionpass.issued': {
        const { claims } = record.data;
        this.passes.set(record.data.actionId, { passId: record.data.passId, payloadHash: claims.payloadHash, exp: claims.exp, ...(claims.approvalId !== undefined && { approvalId: claims.approvalId }) });
        const approval = claims.approvalId === undefined ? undefined : this.approvals.get(claims.approvalId);
        if (approval?.status === 'granted' && approval.usedBy === undefined) approval.usedBy = record.data.actionId;
        return;
      }
      case 'approval.requested':
        this.approvals.set(record.data.approvalId, { status: 'pending' });
        return;
      case 'approval.granted':
      case 'approval.rejected': {
        const approval = this.approvals.get(record.data.approvalId);
        if (!approval) return;
        if (record.type === 'approval.granted') Object.assign(approval, { status: 'granted', approvedPayloadHash: record.data.approvedPayloadHash });
        else approval.status = 'rejected';
        return;
      }
      default:
        return;
    }
  }
}

/** The ledger as the line checks leave it: the first defect, or the accepted records' leaves and identity. */
export interface LedgerResult {
  defect?: Expected;
  leaves: Buffer[];
  origin?: string;
  keys: GenesisKey[];
}

/** Checks 1 to 12 of 9.3 over every line, in order, stopping at the first defect. */
export function checkLedger(bytes: Buffer, pinnedKey: Buffer | undefined, file?: string): LedgerResult {
  const leaves: Buffer[] = [];
  const equivalence = new EquivalenceModel();
  const result: LedgerResult = { leaves, keys: [] };
  let previous = ZERO_HASH;
  for (let offset = 0; offset < bytes.length; ) {
    const seq = leaves.length;
    const fail = (code: DefectCode): LedgerResult => ({ ...result, defect: { code, seq, offset, ...(file !== undefined && { file }) } });
    const newline = bytes.indexOf(10, offset);
    const line = bytes.subarray(offset, newline < 0 ? bytes.length : newline);
    if (line.length > MAX_LINE_BYTES) return fail('record_invalid');
    if (newline < 0) return fail('torn_line');
    const checked = checkLineBytes(line);
    if ('code' in checked) return fail(checked.code !== 'catalogue' ? checked.code : seq === 0 ? 'genesis_invalid' : 'record_invalid');
    const record = checked.record;
    if (record.seq !== seq) return fail('seq_gap');
    if (record.prevHash !== previous) return fail('chain_broken');
    if ((seq === 0) !== (record.type === 'ledger.genesis')) return fail('genesis_invalid');
    if (record.type === 'ledger.genesis') {
      result.origin = record.data.origin;
      result.keys = record.data.keys.map((key) => ({ name: key.name, publicKey: Buffer.from(key.publicKey, 'base64') }));
      if (pinnedKey && !result.keys.some((key) => key.publicKey.equals(pinnedKey))) return fail('key_untrusted');
    }
    if (record.type === 'ledger.checkpoint') {
      if (record.data.size !== seq) return fail('root_mismatch');
      const root = merkleRoot(leaves);
      if (record.data.root !== root.toString('base64')) return fail('root_mismatch');
      const code = checkNote(record.data.note, trustedKeys(result.keys, pinnedKey), result.origin, seq, root);
      if (code) return fail(code);
    }
    if (equivalence.violated(record)) return fail('equivalence_mismatch');
    equivalence.apply(record);
    leaves.push(sha256(Uint8Array.of(0), line));
    previous = `sha256:${(leaves[seq] as Buffer).toString('hex')}`;
    offset = newline + 1;
  }
  if (leaves.length === 0) return { ...result, defect: { code: 'genesis_invalid', seq: 0, offset: 0, ...(file !== undefined && { file }) } };
  return result;
}

/** The keys a note must be signed by (9.5): the pinned one under its genesis names, else every genesis key. */
function trustedKeys(keys: readonly GenesisKey[], pinnedKey: Buffer | undefined): GenesisKey[] {
  return pinnedKey ? keys.filter((key) => key.publicKey.equals(pinnedKey)) : [...keys];
}

/** A bare ledger file and its optional sidecar note (9.2). Undefined when it verifies. */
export function expectLedgerFile(bytes: Buffer, sidecar: { name: string; note: string } | undefined, pinnedKey: Buffer | undefined): Expected | undefined {
  if (sidecar && !parseNote(sidecar.note)) return { code: 'checkpoint_signature_invalid', file: sidecar.name };
  const ledger = checkLedger(bytes, pinnedKey);
  if (ledger.defect) return ledger.defect;
  if (!sidecar) return undefined;
  const size = (parseNote(sidecar.note) as { size: number }).size;
  if (size > ledger.leaves.length) return { code: 'root_mismatch', file: sidecar.name };
  const code = checkNote(sidecar.note, trustedKeys(ledger.keys, pinnedKey), ledger.origin, size, merkleRoot(ledger.leaves.slice(0, size)));
  return code ? { code, file: sidecar.name } : undefined;
}

/** The files of a bundle by their names relative to it, and what the replay of its ledger writes. */
export interface BundleFiles {
  files: Map<string, Buffer>;
  /** The projection files' bytes in the untampered bundle, which the replay of its ledger reproduces. */
  replayed: Map<string, Buffer>;
}

const PROJECTION_ORDER = ['decisions.jsonl', 'approvals.jsonl', 'executions.jsonl', 'equivalence.jsonl', 'siem.jsonl', 'otlp-logs.jsonl'];
const LEDGER = 'ledger.jsonl';
const ATTESTATION = 'attestation.json';
const CHECKPOINT = 'checkpoint';

/**
 * A bundle (9.1), for tampering that keeps the set of files and leaves the ledger's replay alone
 * unless it changes the ledger (then the line checks or the ledger digest fail first). Undefined
 * when it verifies.
 */
export function expectBundle(bundle: BundleFiles, pinnedKey: Buffer): Expected | undefined {
  const file = (name: string): Buffer => bundle.files.get(name) ?? Buffer.alloc(0);
  const ledgerBytes = file(LEDGER);
  // Step 3: the genesis the attestation key is looked up in: checks 2 to 9 of the first line, no key pinned.
  const firstLine = ledgerBytes.subarray(0, ledgerBytes.indexOf(10) + 1);
  const genesis = checkLedger(firstLine, undefined);
  if (genesis.defect || genesis.leaves.length !== 1) return { code: 'genesis_invalid', seq: 0, offset: 0, file: LEDGER };

  // Steps 4 to 6: the envelope, its signature by the pinned key, its exact form, the subjects.
  const attestation = checkAttestation(file(ATTESTATION).toString('utf8'), genesis.keys, pinnedKey);
  if ('code' in attestation) return { code: attestation.code, file: ATTESTATION };
  const statement = attestation.statement;
  const digests = new Map(statement.subject.map((subject) => [subject.name, subject.digest.sha256]));
  const names = [...bundle.files.keys()].filter((name) => name !== ATTESTATION);
  const missing = names.find((name) => !digests.has(name)) ?? [...digests.keys()].find((name) => !bundle.files.has(name));
  if (missing !== undefined) return { code: 'subject_digest_mismatch', file: missing };
  if (statement.predicate.reducerVersion !== 'svc.reducers.v0') return { code: 'projection_mismatch', file: ATTESTATION };

  // Steps 8 to 13.
  const ledger = checkLedger(ledgerBytes, pinnedKey, LEDGER);
  if (ledger.defect) return ledger.defect;
  const hex = (bytes: Buffer) => sha256(bytes).toString('hex');
  if (digests.get(LEDGER) !== hex(ledgerBytes)) return { code: 'subject_digest_mismatch', file: LEDGER };
  if (digests.get(CHECKPOINT) !== hex(file(CHECKPOINT))) return { code: 'subject_digest_mismatch', file: CHECKPOINT };
  const note = file(CHECKPOINT).toString('utf8');
  const root = merkleRoot(ledger.leaves);
  const noteCode = checkNote(note, trustedKeys(ledger.keys, pinnedKey), ledger.origin, ledger.leaves.length, root);
  if (noteCode) return { code: noteCode, file: CHECKPOINT };
  const predicate = statement.predicate;
  if (predicate.checkpoint !== note || predicate.size !== ledger.leaves.length || predicate.root !== root.toString('base64') || predicate.origin !== ledger.origin) return { code: 'root_mismatch', file: ATTESTATION };
  for (const projection of PROJECTION_ORDER) {
    const name = `projections/${projection}`;
    if (digests.get(name) !== hex(file(name))) return { code: 'subject_digest_mismatch', file: name };
    if (!file(name).equals(bundle.replayed.get(name) ?? Buffer.alloc(0))) return { code: 'projection_mismatch', file: name };
  }
  return undefined;
}

interface Statement {
  subject: { name: string; digest: { sha256: string } }[];
  predicate: { origin?: unknown; size?: unknown; root?: unknown; checkpoint?: unknown; reducerVersion?: unknown };
}

/** DSSE PAE (8.3). */
function pae(payloadType: string, payload: Buffer): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${payload.length} `), payload]);
}

/** 9.1 steps 4 to 6 (without the file set): the statement, or the code of the first failure. */
function checkAttestation(text: string, keys: readonly GenesisKey[], pinnedKey: Buffer): { statement: Statement } | { code: DefectCode } {
  const bad = { code: 'attestation_signature_invalid' } as const;
  let envelope: unknown;
  try {
    envelope = JSON.parse(text);
  } catch {
    return bad;
  }
  if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) return bad;
  const { payload, payloadType, signatures } = envelope as Record<string, unknown>;
  if (typeof payload !== 'string' || payloadType !== 'application/vnd.in-toto+json' || !Array.isArray(signatures) || signatures.length < 1 || signatures.length > 16) return bad;
  const decoded: { keyid: unknown; sig: Buffer }[] = [];
  for (const signature of signatures as unknown[]) {
    if (typeof signature !== 'object' || signature === null || Array.isArray(signature)) return bad;
    const { keyid, sig } = signature as Record<string, unknown>;
    if ((keyid !== undefined && typeof keyid !== 'string') || typeof sig !== 'string') return bad;
    const bytes = strictBase64(sig) ?? strictBase64(sig, true);
    if (!bytes) return bad;
    decoded.push({ keyid, sig: bytes });
  }
  const payloadBytes = strictBase64(payload) ?? strictBase64(payload, true);
  if (!payloadBytes) return bad;
  const message = pae(payloadType, payloadBytes);
  if (!decoded.some((signature) => ed25519Verify(pinnedKey, message, signature.sig))) {
    // 9.5: "signed by another key" when no keyid names the pinned key and one names a key at all.
    const pinnedIds = new Set(keys.map((key) => keyId(key.name, pinnedKey).toString('hex')));
    const keyids = decoded.map((signature) => signature.keyid);
    const other = !keyids.some((id) => typeof id === 'string' && pinnedIds.has(id)) && keyids.some((id) => typeof id === 'string' && /^[0-9a-f]{8}$/.test(id));
    return { code: other ? 'key_untrusted' : 'attestation_signature_invalid' };
  }
  if (!isUtf8(payloadBytes)) return bad;
  const statementText = payloadBytes.toString('utf8');
  let statement: unknown;
  try {
    statement = JSON.parse(statementText);
  } catch {
    return bad;
  }
  if (canonicalize(statement) !== statementText || !isStatement(statement)) return bad;
  // Step 5: exactly the one form svc writes, keyid naming the pinned key under its genesis name.
  const name = keys.find((key) => key.publicKey.equals(pinnedKey))?.name;
  const only = decoded.length === 1 ? (signatures[0] as { sig: string }).sig : undefined;
  if (name === undefined || only === undefined || text !== `${canonicalize({ payload, payloadType, signatures: [{ keyid: keyId(name, pinnedKey).toString('hex'), sig: only }] })}\n`) return bad;
  if ((statement as { predicateType: unknown }).predicateType !== 'urn:svc:ledger-export:v0') return bad;
  return { statement };
}

function isStatement(value: unknown): value is Statement & { predicateType: string } {
  if (typeof value !== 'object' || value === null) return false;
  const { _type, subject, predicateType, predicate } = value as Record<string, unknown>;
  if (_type !== 'https://in-toto.io/Statement/v1' || typeof predicateType !== 'string' || predicateType.length === 0) return false;
  if (typeof predicate !== 'object' || predicate === null || Array.isArray(predicate) || !Array.isArray(subject) || subject.length === 0) return false;
  const names = new Set<string>();
  for (const entry of subject as unknown[]) {
    const { name, digest } = (entry ?? {}) as { name?: unknown; digest?: { sha256?: unknown } };
    if (typeof name !== 'string' || name.length === 0 || names.has(name) || typeof digest?.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(digest.sha256)) return false;
    names.add(name);
  }
  return true;
}
