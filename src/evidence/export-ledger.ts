import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SvcError } from '../errors.js';
import type { SigningKey } from '../actionpass/keys.js';
import { canonicalJson } from '../events/canonical.js';
import { signCheckpoint } from '../events/checkpoint.js';
import type { Defect } from '../events/defects.js';
import { loadLedgerKey } from '../events/ledger-key.js';
import { nodeLedgerFs } from '../events/ledger-fs.js';
import { PROJECTION_FILES, REDUCER_VERSION } from '../projections/replay.js';
import { IN_TOTO_STATEMENT_TYPE, signStatement, type InTotoSubject } from './attestation.js';
import { BUNDLE_ATTESTATION, BUNDLE_CHECKPOINT, BUNDLE_LEDGER, BUNDLE_PROJECTIONS, EXPORT_PREDICATE_TYPE, type ExportPredicate } from './bundle.js';
import { FileSink } from './file-sink.js';
import { checkLedgerInput, describeDefect } from './ledger-input.js';
import { runLedgerPass } from './ledger-pass.js';

export interface ExportOptions {
  ledgerPath: string;
  outDir: string;
  /** The ledger's signing key; by default the one its genesis names, from `<ledger dir>/keys`. */
  key?: SigningKey;
  onProgress?: (bytesRead: number, totalBytes: number) => void;
}

export interface ExportResult {
  outDir: string;
  origin: string;
  size: number;
  root: string;
  files: InTotoSubject[];
  /** A torn tail left out of the bundle (the writer quarantines it on its next open). */
  skippedTornTail?: Defect;
}

/**
 * A ledger that fails its checks (a defect in a line, or fewer records than its checkpoint file
 * covers) is not exported: signing a fresh checkpoint over what is left would turn a cut ledger
 * into valid-looking evidence. `code` is the defect's code, as verify-export reports it.
 */
export class ExportRefusedError extends SvcError {
  readonly defect: Defect;

  constructor(ledgerPath: string, defect: Defect) {
    super(defect.code, `${ledgerPath}: not exported: ${describeDefect(defect)}`);
    this.defect = defect;
  }
}

/**
 * Writes an export bundle: the ledger's valid records byte for byte, a checkpoint signed for
 * exactly those records, the projections replayed from them, and a DSSE attestation over all of
 * it. The bundle is assembled in a sibling temp directory and renamed into place, so `outDir`
 * either does not exist or holds a whole bundle. A ledger with a defect is not exported
 * (ExportRefusedError).
 */
export async function exportLedger(options: ExportOptions): Promise<ExportResult> {
  const { ledgerPath, outDir } = options;
  const checkpointFile = await checkLedgerInput(ledgerPath);
  await assertAbsentOrEmpty(outDir);
  const key = options.key ?? (await loadLedgerKey(ledgerPath));
  const staging = `${outDir}.partial-${randomBytes(4).toString('hex')}`;
  await mkdir(join(staging, BUNDLE_PROJECTIONS), { recursive: true });
  try {
    const ledgerSink = new FileSink(join(staging, BUNDLE_LEDGER));
    const projectionSinks = new Map(PROJECTION_FILES.map((file) => [file, new FileSink(join(staging, BUNDLE_PROJECTIONS, file))]));
    const pass = await runLedgerPass(ledgerPath, {
      tolerateTornTail: true,
      checkpointFile,
      sinks: Object.fromEntries([...projectionSinks].map(([file, sink]) => [file, (line: string) => sink.write(line)])),
      onRecords: (_records, lines) => {
        for (const line of lines) {
          ledgerSink.write(line);
          ledgerSink.write('\n');
        }
      },
      ...(options.onProgress && { onProgress: options.onProgress }),
    });
    if (pass.defect) throw new ExportRefusedError(ledgerPath, pass.defect);
    const { checker } = pass;
    if (!checker.listsKey(key.name, key.publicKey)) {
      throw new SvcError('key_mismatch', `key ${key.name} is not listed in the genesis of ${ledgerPath}`);
    }
    const origin = checker.origin ?? '';
    const size = checker.size;
    const root = checker.tree.root();
    const note = signCheckpoint(key, origin, size, root);
    const checkpointSink = new FileSink(join(staging, BUNDLE_CHECKPOINT));
    checkpointSink.write(note);
    const files: InTotoSubject[] = [
      { name: BUNDLE_CHECKPOINT, digest: { sha256: checkpointSink.close() } },
      { name: BUNDLE_LEDGER, digest: { sha256: ledgerSink.close() } },
      ...[...projectionSinks].map(([file, sink]) => ({ name: `${BUNDLE_PROJECTIONS}/${file}`, digest: { sha256: sink.close() } })),
    ].sort((a, b) => (a.name < b.name ? -1 : 1));
    const predicate: ExportPredicate = { origin, size, root: root.toString('base64'), checkpoint: note, reducerVersion: REDUCER_VERSION };
    const envelope = signStatement(key, { _type: IN_TOTO_STATEMENT_TYPE, subject: files, predicateType: EXPORT_PREDICATE_TYPE, predicate });
    const attestationSink = new FileSink(join(staging, BUNDLE_ATTESTATION));
    attestationSink.write(`${canonicalJson(envelope)}\n`);
    attestationSink.close();
    await nodeLedgerFs.fsyncDirectory(join(staging, BUNDLE_PROJECTIONS));
    await nodeLedgerFs.fsyncDirectory(staging);
    await rm(outDir, { recursive: true, force: true });
    await rename(staging, outDir);
    await nodeLedgerFs.fsyncDirectory(dirname(outDir));
    const result: ExportResult = { outDir, origin, size, root: root.toString('base64'), files };
    if (pass.tornTail) result.skippedTornTail = pass.tornTail;
    return result;
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

async function assertAbsentOrEmpty(dir: string): Promise<void> {
  try {
    const entries = await readdir(dir);
    if (entries.length > 0) throw new SvcError('export_target_exists', `${dir} already exists and is not empty; choose a new --out directory`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') throw new SvcError('export_target_exists', `${dir} exists and is not a directory`);
    throw error;
  }
}
