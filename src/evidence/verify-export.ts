import { createHash } from 'node:crypto';
import { lstat, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeBase64Strict } from '../actionpass/keys.js';
import { SvcError } from '../errors.js';
import { canonicalJson } from '../events/canonical.js';
import { verifyLedgerNote } from '../events/chain-checker.js';
import { noteKeyId, parseCheckpoint } from '../events/checkpoint.js';
import type { Defect } from '../events/defects.js';
import { readGenesis } from '../events/ledger-key.js';
import { readRegularFile } from '../fs/regular-file.js';
import { PROJECTION_FILES, REDUCER_VERSION } from '../projections/replay.js';
import { openEnvelope, type InTotoStatement } from './attestation.js';
import { BUNDLE_ATTESTATION, BUNDLE_CHECKPOINT, BUNDLE_LEDGER, BUNDLE_PROJECTIONS, EXPORT_PREDICATE_TYPE, type ExportPredicate } from './bundle.js';
import { chainBefore, identityOf, runChainPassInWorker, type ChainSummary } from './chain-pass.js';
import { lstatInput, readCheckpointFile } from './ledger-input.js';
import { ProjectionFileCheck } from './projection-file-check.js';
import { digestReplayPassInWorker, type ReplayDigest, type ReplayedBytesReceiver } from './replay-pass.js';

export interface VerifyOptions {
  /** The ledger public key (32 raw bytes) the verifier trusts; without it the genesis key is trusted. */
  pinnedKey?: Buffer;
  onProgress?: (bytesRead: number, totalBytes: number) => void;
  /**
   * For tests only (no CLI flag): the read size of both ledger passes, in bytes (default 1 MiB).
   * Each read becomes one batch of the replay, so a small size makes verification replay a small
   * ledger in many batch splits; the verdict and the projections must not depend on it.
   */
  chunkBytes?: number;
}

export interface VerifyReport {
  valid: boolean;
  kind: 'bundle' | 'ledger';
  path: string;
  defect?: Defect;
  origin?: string;
  records: number;
  root?: string;
  /** False when no key was pinned and the genesis key was trusted as it stands. */
  keyPinned: boolean;
  checkpoints: number;
  /** Records after the newest signed checkpoint: protected by the chain only. */
  uncheckpointed: number;
  equivalence: { equivalent: number; blocked: number; violated: number };
  warnings: string[];
}

const MAX_SMALL_FILE = 16 * 1024 * 1024;

/**
 * `svc verify-export`: checks a bundle directory or a bare ledger file, failing closed at the
 * first defect, with its code, seq and byte offset (DESIGN.md section 4, "Verification").
 * Nothing is written. Order: attestation signature and subject list; then one pass over the
 * ledger (canonical lines, seq, chain, genesis, in-band checkpoints, equivalence pairs, replay of
 * every projection); then the ledger digest, the checkpoint and the projections byte for byte.
 */
export async function verifyExport(path: string, options: VerifyOptions = {}): Promise<VerifyReport> {
  if (options.chunkBytes !== undefined && !(Number.isSafeInteger(options.chunkBytes) && options.chunkBytes > 0)) throw new RangeError(`chunkBytes must be a positive integer, not ${options.chunkBytes}`);
  const info = await lstatInput(path);
  if (info.isDirectory()) return verifyBundle(path, options);
  if (!info.isFile()) throw new SvcError('path_not_file', `${path} is neither a bundle directory nor a ledger file`);
  return verifyLedgerFile(path, options);
}

function baseReport(kind: 'bundle' | 'ledger', path: string, options: VerifyOptions): VerifyReport {
  return { valid: false, kind, path, records: 0, keyPinned: options.pinnedKey !== undefined, checkpoints: 0, uncheckpointed: 0, equivalence: { equivalent: 0, blocked: 0, violated: 0 }, warnings: [] };
}

function fail(report: VerifyReport, defect: Defect): VerifyReport {
  return { ...report, valid: false, defect };
}

async function verifyLedgerFile(path: string, options: VerifyOptions): Promise<VerifyReport> {
  const report = baseReport('ledger', path, options);
  const sidecarPath = `${path}.checkpoint`;
  // Whatever sits at the sidecar's name is read without following a link or waiting on a FIFO,
  // and only up to the largest note: anything else there is a bad checkpoint, not a hang.
  const sidecarFile = await readCheckpointFile(sidecarPath);
  if (sidecarFile !== undefined && 'problem' in sidecarFile) return fail(report, { code: 'checkpoint_signature_invalid', message: `the checkpoint sidecar ${sidecarFile.problem}, not a signed note`, file: sidecarPath });
  const sidecar = sidecarFile?.note;
  let sidecarSize: number | undefined;
  if (sidecar !== undefined) {
    try {
      sidecarSize = parseCheckpoint(sidecar).size;
    } catch (error) {
      return fail(report, { code: 'checkpoint_signature_invalid', message: (error as Error).message, file: sidecarPath });
    }
  }
  const { chain, replayed, defect } = await runPasses(path, options, { projections: [], fileDigest: false, ...(sidecarSize !== undefined && { rootAtSize: sidecarSize }) });
  fillFromPasses(report, chain, defect, replayed);
  if (defect) return fail(report, defect);
  if (sidecar !== undefined && sidecarSize !== undefined) {
    const sidecarDefect = verifySidecar(chain, options, sidecar, sidecarSize);
    if (sidecarDefect) return fail(report, { ...sidecarDefect, file: sidecarPath });
    report.warnings.push(`checkpoint sidecar ${sidecarPath} verified`);
    report.uncheckpointed = Math.min(report.uncheckpointed, chain.size - sidecarSize);
  }
  if (report.checkpoints === 0 && sidecar === undefined) {
    // Anyone can write a genesis that lists a public key; only a signature shows its holder wrote the rest.
    if (options.pinnedKey) return fail(report, { code: 'checkpoint_signature_invalid', message: 'no signed checkpoint covers this ledger, in-band or in a sidecar: nothing in it is signed by the pinned key', file: sidecarPath });
    report.warnings.push('no signed checkpoint covers this ledger: it is protected by its hash chain only');
  }
  return { ...report, valid: true };
}

/** A sidecar may lag the ledger (it is written after each in-band checkpoint), never lead it. */
function verifySidecar(chain: ChainSummary, options: VerifyOptions, note: string, size: number): Omit<Defect, 'seq' | 'offset'> | undefined {
  if (chain.rootAtSize === undefined) return { code: 'root_mismatch', message: `the checkpoint covers ${size} records but the ledger has ${chain.size}: records were removed` };
  return verifyLedgerNote(identityOf(chain, options.pinnedKey), note, size, Buffer.from(chain.rootAtSize, 'base64'));
}

/** What the passes must also produce: the projections to digest, the ledger's own digest, the root at a sidecar's size. */
interface PassRequest {
  projections: string[];
  fileDigest: boolean;
  rootAtSize?: number;
  /** Where each projection's replayed bytes go, on this thread (see digestReplayPassInWorker); sha256 hashes by default. */
  receiverFor?: (file: string) => ReplayedBytesReceiver;
}

/**
 * The chain checks (on a worker thread) and the projection replay (on another) run at once over
 * the same bytes. The first defect in seq order wins: a line defect, or an execution whose pair
 * does not hold (judged only from records that passed the checks before it).
 *
 * The record checks (valid JSON, catalogue) run on the replay thread, which parses every line
 * anyway, and the chain thread reads seq and prevHash off the unparsed bytes: each line is parsed
 * once, not once per thread. For a bundle that is about 3 of 25 CPU seconds per million records,
 * although the replay thread, the slower one there, takes on the catalogue checks.
 */
async function runPasses(path: string, options: VerifyOptions, request: PassRequest): Promise<{ chain: ChainSummary; replayed: ReplayDigest; defect?: Defect }> {
  const end = (await stat(path)).size;
  const [chainChecked, replayed] = await Promise.all([
    runChainPassInWorker(path, {
      end,
      fileDigest: request.fileDigest,
      ...(options.chunkBytes !== undefined && { chunkBytes: options.chunkBytes }),
      ...(options.pinnedKey && { pinnedKey: options.pinnedKey.toString('base64') }),
      ...(request.rootAtSize !== undefined && { rootAtSize: request.rootAtSize }),
      // Replaying a bundle's projections takes about twice the chain checks' CPU; over a bare
      // ledger the two passes take about the same.
      ...(request.projections.length > 0 && { background: true }),
    }),
    digestReplayPassInWorker(path, { end, projections: request.projections, ...(options.chunkBytes !== undefined && { chunkBytes: options.chunkBytes }), checkRecords: true }, options.onProgress, request.receiverFor),
  ]);
  let chain = chainChecked;
  let defect = chain.defect;
  // A line's record checks come before its chain checks, as in ChainChecker.check; the chain
  // pass ran them itself on the line of its defect unless it says otherwise.
  const recordDefect = replayed.recordDefect;
  if (recordDefect?.offset !== undefined && recordDefect.seq !== undefined && (defect?.offset === undefined || defect.offset > recordDefect.offset || (defect.offset === recordDefect.offset && chain.defectBeforeRecordChecks))) {
    defect = recordDefect;
    chain = chainBefore(chain, recordDefect.seq);
  }
  const violation = replayed.violation;
  // By position in the file, not by the seq a record claims: a line from the chain defect on
  // (a duplicated or moved execution, say) did not pass the checks, whatever seq it carries.
  if (violation && (defect?.offset === undefined || defect.offset > violation.offset)) {
    defect = { code: 'equivalence_mismatch', seq: violation.verdict.seq, offset: violation.offset, message: `action ${violation.verdict.actionId}: ${violation.verdict.problem ?? 'pair does not hold'}` };
  }
  if (!defect && replayed.stoppedAt !== undefined) throw new SvcError('internal_error', `${path}: replay stopped at byte ${replayed.stoppedAt} although the chain checks passed`);
  return { chain, replayed, ...(defect && { defect }) };
}

async function verifyBundle(dir: string, options: VerifyOptions): Promise<VerifyReport> {
  const report = baseReport('bundle', dir, options);
  const files = await listBundle(dir);
  if ('code' in files) return fail(report, files);
  const ledgerPath = join(dir, BUNDLE_LEDGER);

  // 1. Attestation: signed by the trusted key, listing exactly the bundle's files.
  const attestationFile = await readBundleFile(dir, BUNDLE_ATTESTATION);
  if (!attestationFile.ok) return fail(report, attestationFile.defect);
  const attestationText = attestationFile.bytes.toString('utf8');
  const genesis = await readGenesis(ledgerPath).catch(() => undefined);
  if (!genesis) return fail(report, { code: 'genesis_invalid', seq: 0, offset: 0, message: 'the bundle ledger does not start with a valid genesis record, so there is no key to verify the attestation with', file: BUNDLE_LEDGER });
  const candidates = options.pinnedKey ? [options.pinnedKey] : genesis.data.keys.map((key) => Buffer.from(key.publicKey, 'base64'));
  let opened = openEnvelope(attestationText, candidates[0] as Buffer);
  let verifyKey = candidates[0] as Buffer;
  for (const candidate of candidates.slice(1)) {
    if (opened.ok) break;
    opened = openEnvelope(attestationText, candidate);
    verifyKey = candidate;
  }
  if (!opened.ok) {
    // Only a well-formed envelope whose signatures all fail can say whose it is: a damaged or
    // unparsable file is a bad attestation, whatever key was pinned.
    const otherKey = options.pinnedKey !== undefined && opened.code === 'attestation_signature_invalid' ? otherSignerKeyId(attestationText, genesis.data.keys, options.pinnedKey) : undefined;
    if (otherKey !== undefined) return fail(report, { code: 'key_untrusted', message: `the attestation is not signed by the pinned key: its keyid ${otherKey} names another key (${opened.message})`, file: BUNDLE_ATTESTATION });
    return fail(report, { code: 'attestation_signature_invalid', message: opened.message, file: BUNDLE_ATTESTATION });
  }
  const formDefect = checkEnvelopeForm(attestationText, genesis.data.keys, verifyKey);
  if (formDefect) return fail(report, formDefect);
  const statement = opened.statement;
  const subjectDefect = checkSubjects(statement, files);
  if (subjectDefect) return fail(report, subjectDefect);
  const predicate = statement.predicate as Partial<ExportPredicate>;
  if (predicate.reducerVersion !== REDUCER_VERSION) {
    return fail(report, { code: 'projection_mismatch', message: `the bundle was made by reducers ${String(predicate.reducerVersion)}; this verifier replays ${REDUCER_VERSION}`, file: BUNDLE_ATTESTATION });
  }

  // 2. One pass over the ledger, replaying every projection into digests. Meanwhile this thread,
  // idle otherwise, reads the projection files beside the replay: each file is hashed (for step
  // 4) and compared with the replay as it comes, which gives the replay's digest too.
  const onDisk = new Map(await Promise.all(PROJECTION_FILES.map(async (file) => [file, await ProjectionFileCheck.open(join(dir, projectionName(file)))] as const)));
  try {
    return await checkLedgerAndProjections(dir, ledgerPath, options, report, statement, onDisk);
  } finally {
    await Promise.all([...onDisk.values()].map((check) => check.close()));
  }
}

/** Steps 2 to 4 of `verifyBundle`, for a bundle whose attestation verified. */
async function checkLedgerAndProjections(dir: string, ledgerPath: string, options: VerifyOptions, report: VerifyReport, statement: InTotoStatement, onDisk: ReadonlyMap<string, ProjectionFileCheck>): Promise<VerifyReport> {
  const predicate = statement.predicate as Partial<ExportPredicate>;
  const { chain, replayed, defect } = await runPasses(ledgerPath, options, { projections: PROJECTION_FILES, fileDigest: true, receiverFor: (file) => onDisk.get(file) as ProjectionFileCheck });
  fillFromPasses(report, chain, defect, replayed);
  if (defect) return fail(report, { ...defect, file: BUNDLE_LEDGER });

  // 3. The ledger is the attested one, and the checkpoint signs exactly its records.
  const digests = new Map(statement.subject.map((subject) => [subject.name, subject.digest.sha256]));
  if (digests.get(BUNDLE_LEDGER) !== chain.fileDigest) return fail(report, { code: 'subject_digest_mismatch', message: `${BUNDLE_LEDGER} has sha256 ${chain.fileDigest}, the attestation says ${digests.get(BUNDLE_LEDGER)}`, file: BUNDLE_LEDGER });
  const checkpointFile = await readBundleFile(dir, BUNDLE_CHECKPOINT);
  if (!checkpointFile.ok) return fail(report, checkpointFile.defect);
  const checkpointBytes = checkpointFile.bytes;
  const checkpointDigest = createHash('sha256').update(checkpointBytes).digest('hex');
  if (digests.get(BUNDLE_CHECKPOINT) !== checkpointDigest) return fail(report, { code: 'subject_digest_mismatch', message: `${BUNDLE_CHECKPOINT} does not match its attested digest`, file: BUNDLE_CHECKPOINT });
  const note = checkpointBytes.toString('utf8');
  const root = Buffer.from(chain.root, 'base64');
  const checkpointDefect = verifyLedgerNote(identityOf(chain, options.pinnedKey), note, chain.size, root);
  if (checkpointDefect) return fail(report, { ...checkpointDefect, file: BUNDLE_CHECKPOINT });
  if (predicate.checkpoint !== note || predicate.size !== chain.size || predicate.root !== chain.root || predicate.origin !== chain.origin) {
    return fail(report, { code: 'root_mismatch', message: 'the attestation predicate (origin, size, root, checkpoint) does not describe this ledger and checkpoint', file: BUNDLE_ATTESTATION });
  }

  // 4. Each projection file is attested and equals the replay byte for byte.
  for (const file of PROJECTION_FILES) {
    const name = projectionName(file);
    // A file of another length than the replay differs from it; when the attestation names the
    // replayed digest, it differs from that too, and is refused without reading it: a sparse file
    // of terabytes would otherwise be hashed for hours before the same verdict.
    if (digests.get(name) === replayed.digests[file] && (await sizeOf(join(dir, name))) !== replayed.lengths[file]) {
      return fail(report, { code: 'subject_digest_mismatch', message: `${name} does not match its attested digest (it is not the length of the replayed projection)`, file: name });
    }
    const onDiskDigest = await (onDisk.get(file) as ProjectionFileCheck).fileDigest();
    if (onDiskDigest === undefined) return fail(report, notRegularInBundle(name));
    if (digests.get(name) !== onDiskDigest) return fail(report, { code: 'subject_digest_mismatch', message: `${name} does not match its attested digest`, file: name });
    const replayedDigest = replayed.digests[file];
    if (replayedDigest !== onDiskDigest) return fail(report, { code: 'projection_mismatch', message: `${name} differs from the projection replayed from the ledger (sha256 ${onDiskDigest} on disk, ${replayedDigest} replayed)`, file: name });
  }
  report.uncheckpointed = 0;
  return { ...report, valid: true };
}

function fillFromPasses(report: VerifyReport, chain: ChainSummary, defect: Defect | undefined, replayed: ReplayDigest): void {
  report.records = chain.size;
  report.equivalence = replayed.verdicts;
  report.checkpoints = chain.checkpoints;
  report.uncheckpointed = chain.lastCheckpointSeq < 0 ? chain.size : chain.size - chain.lastCheckpointSeq;
  if (chain.origin !== undefined) report.origin = chain.origin;
  if (!defect) report.root = chain.root;
}

type BundleFiles = string[];

/** Every regular file of the bundle, by its relative name; links and other file types are refused. */
async function listBundle(dir: string): Promise<BundleFiles | Defect> {
  const names: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory() && entry.name === BUNDLE_PROJECTIONS) {
      for (const inner of await readdir(join(dir, entry.name), { withFileTypes: true })) {
        if (!inner.isFile()) return notRegularInBundle(`${BUNDLE_PROJECTIONS}/${inner.name}`);
        names.push(`${BUNDLE_PROJECTIONS}/${inner.name}`);
      }
      continue;
    }
    if (!entry.isFile()) return { code: 'subject_digest_mismatch', message: `${entry.name} is not a regular file (links and extra directories are refused)`, file: entry.name };
    names.push(entry.name);
  }
  for (const required of [BUNDLE_ATTESTATION, BUNDLE_LEDGER, BUNDLE_CHECKPOINT]) {
    if (!names.includes(required)) return { code: 'subject_digest_mismatch', message: `the bundle has no ${required}`, file: required };
  }
  return names;
}

function checkSubjects(statement: InTotoStatement, files: BundleFiles): Defect | undefined {
  if (statement.predicateType !== EXPORT_PREDICATE_TYPE) return { code: 'attestation_signature_invalid', message: `predicateType ${statement.predicateType} is not ${EXPORT_PREDICATE_TYPE}`, file: BUNDLE_ATTESTATION };
  const attested = new Set(statement.subject.map((subject) => subject.name));
  const present = new Set(files.filter((name) => name !== BUNDLE_ATTESTATION));
  // Only the files of the layout are checked below (digest, checkpoint, replay): any other file,
  // even attested, would be vouched for by a valid verdict without being read.
  const layout = new Set([BUNDLE_LEDGER, BUNDLE_CHECKPOINT, ...PROJECTION_FILES.map(projectionName)]);
  for (const name of [...present, ...attested]) if (!layout.has(name)) return { code: 'subject_digest_mismatch', message: `${name} is not a file of an export bundle (ledger.jsonl, checkpoint, attestation.json and the ${PROJECTION_FILES.length} projections)`, file: name };
  for (const name of present) if (!attested.has(name)) return { code: 'subject_digest_mismatch', message: `${name} is in the bundle but not in the attestation`, file: name };
  for (const name of attested) if (!present.has(name)) return { code: 'subject_digest_mismatch', message: `${name} is attested but missing from the bundle`, file: name };
  for (const file of PROJECTION_FILES) if (!attested.has(`${BUNDLE_PROJECTIONS}/${file}`)) return { code: 'subject_digest_mismatch', message: `projection ${file} is missing`, file: `${BUNDLE_PROJECTIONS}/${file}` };
  return undefined;
}

/**
 * DSSE leaves `keyid` unsigned and JSON allows many spellings of one envelope; svc writes exactly
 * one: canonical JSON, one signature, keyid the C2SP key id of the signing key. Holding the file
 * to that form means no byte of a bundle can change while it still verifies.
 */
function checkEnvelopeForm(text: string, keys: readonly { name: string; publicKey: string }[], key: Buffer): Defect | undefined {
  const envelope = JSON.parse(text) as { payload: string; payloadType: string; signatures: { sig: string }[] };
  // By bytes, as the chain checks compare genesis keys: the catalogue lets a key's base64 carry
  // non-zero trailing bits, and such a spelling still lists the same key.
  const name = keys.find((entry) => Buffer.from(entry.publicKey, 'base64').equals(key))?.name;
  const keyid = name === undefined ? undefined : keyIdOf(name, key);
  // DSSE decoders also take URL-safe or unpadded base64, so the same signed bytes have many
  // spellings; svc writes standard base64 with padding, and only that spelling is its file.
  const sig = envelope.signatures[0]?.sig;
  const standardBase64 = decodeBase64Strict(envelope.payload) !== undefined && typeof sig === 'string' && decodeBase64Strict(sig) !== undefined;
  const expected = keyid && standardBase64 && envelope.signatures.length === 1 ? `${canonicalJson({ payload: envelope.payload, payloadType: envelope.payloadType, signatures: [{ keyid, sig }] })}\n` : undefined;
  if (text === expected) return undefined;
  return { code: 'attestation_signature_invalid', message: 'attestation.json is not the canonical envelope svc writes (one signature whose keyid names the ledger key, payload and signature in standard base64 with padding)', file: BUNDLE_ATTESTATION };
}

const NOTE_KEY_ID = /^[0-9a-f]{8}$/;

/** The hex C2SP key id of `key` under `name`; undefined for a genesis name that is no note key name (it can name no key). */
function keyIdOf(name: string, key: Buffer): string | undefined {
  try {
    return noteKeyId(name, key).toString('hex');
  } catch {
    return undefined;
  }
}

/**
 * Tells "signed by another key" from "bad signature", for an envelope that is well formed but
 * does not verify with the pinned key. DSSE's keyid is an unsigned hint, so it only chooses
 * between the two failure codes, never whether the bundle verifies: the answer is a keyid in C2SP
 * key id form that is not the pinned key's under any name the genesis lists, provided no
 * signature claims the pinned key (a claimed but failing signature is a bad signature).
 */
function otherSignerKeyId(text: string, keys: readonly { name: string }[], pinnedKey: Buffer): string | undefined {
  const pinnedIds = new Set(keys.map((key) => keyIdOf(key.name, pinnedKey)));
  const envelope = JSON.parse(text) as { signatures: { keyid?: string }[] };
  const keyids = envelope.signatures.map((signature) => signature.keyid);
  if (keyids.some((keyid) => keyid !== undefined && pinnedIds.has(keyid))) return undefined;
  return keyids.find((keyid): keyid is string => keyid !== undefined && NOTE_KEY_ID.test(keyid));
}

function notRegularInBundle(name: string): Defect {
  return { code: 'subject_digest_mismatch', message: `${name} is not a regular file (links and other file types are refused)`, file: name };
}

/** A bundle file read whole; one that stopped being a regular file after the listing is refused as the listing refuses it. */
async function readBundleFile(dir: string, name: string): Promise<{ ok: true; bytes: Buffer } | { ok: false; defect: Defect }> {
  const path = join(dir, name);
  const file = await readRegularFile(path, MAX_SMALL_FILE);
  if (file.ok) return file;
  if (file.tooLarge) throw new SvcError('file_too_large', `${path} ${file.problem}; at most ${MAX_SMALL_FILE} are read`);
  return { ok: false, defect: { code: 'subject_digest_mismatch', message: `${name} ${file.problem}`, file: name } };
}

/** The size of what is at `path`, without following a link; undefined when nothing is there. */
async function sizeOf(path: string): Promise<number | undefined> {
  try {
    return (await lstat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** A projection file's name in the bundle, as the attestation lists it. */
function projectionName(file: string): string {
  return `${BUNDLE_PROJECTIONS}/${file}`;
}
