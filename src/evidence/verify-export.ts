import { createHash } from 'node:crypto';
import { lstat, open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { SvcError } from '../errors.js';
import { canonicalJson } from '../events/canonical.js';
import { verifyLedgerNote } from '../events/chain-checker.js';
import { noteKeyId, parseCheckpoint } from '../events/checkpoint.js';
import type { Defect } from '../events/defects.js';
import { readGenesis } from '../events/ledger-key.js';
import { PROJECTION_FILES, REDUCER_VERSION } from '../projections/replay.js';
import { openEnvelope, type InTotoStatement } from './attestation.js';
import { BUNDLE_ATTESTATION, BUNDLE_CHECKPOINT, BUNDLE_LEDGER, BUNDLE_PROJECTIONS, EXPORT_PREDICATE_TYPE, type ExportPredicate } from './bundle.js';
import { identityOf, runChainPassInWorker, type ChainSummary } from './chain-pass.js';
import { digestReplayPassInWorker, type ReplayDigest } from './replay-pass.js';

export interface VerifyOptions {
  /** The ledger public key (32 raw bytes) the verifier trusts; without it the genesis key is trusted. */
  pinnedKey?: Buffer;
  onProgress?: (bytesRead: number, totalBytes: number) => void;
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
  const info = await lstatOrThrow(path);
  if (info.isSymbolicLink()) throw new SvcError('path_is_symlink', `${path} is a symbolic link; give the real path of the bundle or ledger`);
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
  const sidecarBytes = await readSmallFile(sidecarPath).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  });
  const sidecar = sidecarBytes?.toString('utf8');
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
  if (report.checkpoints === 0 && sidecar === undefined) report.warnings.push('no signed checkpoint covers this ledger: it is protected by its hash chain only');
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
}

/**
 * The chain checks (on a worker thread) and the projection replay (on another) run at once over
 * the same bytes. The first defect in seq order wins: a line defect, or an execution whose pair
 * does not hold (judged only from records that passed the checks before it).
 */
async function runPasses(path: string, options: VerifyOptions, request: PassRequest): Promise<{ chain: ChainSummary; replayed: ReplayDigest; defect?: Defect }> {
  const end = (await stat(path)).size;
  const [chain, replayed] = await Promise.all([
    runChainPassInWorker(path, {
      end,
      fileDigest: request.fileDigest,
      ...(options.pinnedKey && { pinnedKey: options.pinnedKey.toString('base64') }),
      ...(request.rootAtSize !== undefined && { rootAtSize: request.rootAtSize }),
    }),
    digestReplayPassInWorker(path, { end, projections: request.projections }, options.onProgress),
  ]);
  let defect = chain.defect;
  const violation = replayed.violation;
  if (violation && (defect?.seq === undefined || defect.seq > violation.verdict.seq)) {
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
  const attestationText = (await readSmallFile(join(dir, BUNDLE_ATTESTATION))).toString('utf8');
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
    const signedByOtherKey = options.pinnedKey !== undefined && !envelopeNamesKey(attestationText, genesis.data.keys, options.pinnedKey);
    const code = signedByOtherKey ? 'key_untrusted' : 'attestation_signature_invalid';
    return fail(report, { code, message: signedByOtherKey ? `the attestation is not signed by the pinned key: ${opened.message}` : opened.message, file: BUNDLE_ATTESTATION });
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

  // 2. One pass over the ledger, replaying every projection into digests.
  const { chain, replayed, defect } = await runPasses(ledgerPath, options, { projections: PROJECTION_FILES, fileDigest: true });
  fillFromPasses(report, chain, defect, replayed);
  if (defect) return fail(report, { ...defect, file: BUNDLE_LEDGER });

  // 3. The ledger is the attested one, and the checkpoint signs exactly its records.
  const digests = new Map(statement.subject.map((subject) => [subject.name, subject.digest.sha256]));
  if (digests.get(BUNDLE_LEDGER) !== chain.fileDigest) return fail(report, { code: 'subject_digest_mismatch', message: `${BUNDLE_LEDGER} has sha256 ${chain.fileDigest}, the attestation says ${digests.get(BUNDLE_LEDGER)}`, file: BUNDLE_LEDGER });
  const checkpointBytes = await readSmallFile(join(dir, BUNDLE_CHECKPOINT));
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
    const name = `${BUNDLE_PROJECTIONS}/${file}`;
    const onDisk = await hashFile(join(dir, name));
    if (digests.get(name) !== onDisk) return fail(report, { code: 'subject_digest_mismatch', message: `${name} does not match its attested digest`, file: name });
    const replayedDigest = replayed.digests[file];
    if (replayedDigest !== onDisk) return fail(report, { code: 'projection_mismatch', message: `${name} differs from the projection replayed from the ledger (sha256 ${onDisk} on disk, ${replayedDigest} replayed)`, file: name });
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
        if (!inner.isFile()) return { code: 'subject_digest_mismatch', message: `${BUNDLE_PROJECTIONS}/${inner.name} is not a regular file (links are refused)`, file: `${BUNDLE_PROJECTIONS}/${inner.name}` };
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
  const name = keys.find((entry) => entry.publicKey === key.toString('base64'))?.name;
  const keyid = name === undefined ? undefined : noteKeyId(name, key).toString('hex');
  const expected = keyid && envelope.signatures.length === 1 ? `${canonicalJson({ payload: envelope.payload, payloadType: envelope.payloadType, signatures: [{ keyid, sig: envelope.signatures[0]?.sig }] })}\n` : undefined;
  if (text === expected) return undefined;
  return { code: 'attestation_signature_invalid', message: 'attestation.json is not the canonical envelope svc writes (one signature whose keyid names the ledger key)', file: BUNDLE_ATTESTATION };
}

/** Whether the envelope's keyid hints at the pinned key: tells "signed by another key" from "bad signature". */
function envelopeNamesKey(text: string, keys: readonly { name: string }[], pinnedKey: Buffer): boolean {
  try {
    const envelope = JSON.parse(text) as { signatures?: { keyid?: unknown }[] };
    const ids = new Set(keys.map((key) => noteKeyId(key.name, pinnedKey).toString('hex')));
    return (envelope.signatures ?? []).some((signature) => typeof signature.keyid === 'string' && ids.has(signature.keyid));
  } catch {
    return false;
  }
}

async function lstatOrThrow(path: string) {
  try {
    return await lstat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new SvcError('not_found', `${path} does not exist`);
    throw new SvcError('unreadable', `${path} cannot be read: ${(error as Error).message}`);
  }
}

async function readSmallFile(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const size = (await handle.stat()).size;
    if (size > MAX_SMALL_FILE) throw new SvcError('file_too_large', `${path} is ${size} bytes; at most ${MAX_SMALL_FILE} are read`);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  const handle = await open(path, 'r');
  try {
    for await (const chunk of handle.createReadStream({ highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}
