import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SigningKey } from '../../src/actionpass/keys.js';
import { canonicalJson } from '../../src/events/canonical.js';
import { signStatement, type DsseEnvelope, type InTotoStatement } from '../../src/evidence/attestation.js';
import { fixtureLedgerKey } from '../../scripts/generate-fixtures.js';
import { CLI } from './cli.js';
import { tempDir } from './ledger.js';

/** The fixtures every verify-export test starts from (testdata/ledgers, docs/fixtures.md), and the key they are signed with. */
export const VALID = 'testdata/ledgers/valid';
export const BUNDLE = 'testdata/ledgers/valid-bundle';
export const PUB = join(VALID, 'ledger.pub');

export interface Verified {
  status: number | null;
  report: { valid: boolean; defect?: { code: string; seq?: number; offset?: number; file?: string; message: string } };
  stderr: string;
}

/**
 * Runs `svc verify-export <target> --json` (pinned to the fixture key unless `pinned` is false),
 * killing it after `ms`: a verification that hangs (a FIFO opened for reading waits for a writer
 * forever) must fail the test, not stall the suite.
 */
export function verify(target: string, options: { pinned?: boolean; ms?: number } = {}): Promise<Verified> {
  const args = [CLI, 'verify-export', target, ...(options.pinned === false ? [] : ['--pubkey', PUB]), '--json'];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: options.ms ?? 20_000, killSignal: 'SIGKILL' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status, signal) => {
      if (signal !== null) return reject(new Error(`svc verify-export ${target} did not finish within ${options.ms ?? 20_000} ms (${signal})`));
      resolve({ status, report: JSON.parse(stdout) as Verified['report'], stderr });
    });
  });
}

/** A copy of a fixture in a fresh temporary directory, to edit. */
export async function copyOf(source: string): Promise<string> {
  const target = join(await tempDir('svc-verify-'), 'copy');
  await cp(source, target, { recursive: true });
  return target;
}

export const sha256Hex = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

export function statementOf(envelope: DsseEnvelope): InTotoStatement {
  return JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as InTotoStatement;
}

/**
 * Signs the attestation again over the subjects `edit` leaves (by default the bundle's files as
 * they are now, as an exporter holding `key` would).
 */
export async function resign(bundle: string, key: SigningKey = fixtureLedgerKey, edit?: (statement: InTotoStatement) => void | Promise<void>): Promise<void> {
  const statement = statementOf(JSON.parse(await readFile(join(bundle, 'attestation.json'), 'utf8')) as DsseEnvelope);
  statement.subject = await Promise.all(statement.subject.map(async (subject) => ({ name: subject.name, digest: { sha256: sha256Hex(await readFile(join(bundle, subject.name))) } })));
  await edit?.(statement);
  await writeFile(join(bundle, 'attestation.json'), `${canonicalJson(signStatement(key, statement))}\n`);
}
