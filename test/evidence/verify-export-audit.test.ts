import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/events/canonical.js';
import { signStatement, type DsseEnvelope, type InTotoStatement } from '../../src/evidence/attestation.js';
import { fixtureLedgerKey } from '../../scripts/generate-fixtures.js';
import { CLI } from '../support/cli.js';
import { tempDir } from '../support/ledger.js';

/**
 * Inputs an adversarial review found `svc verify-export` accepting although they are not what
 * DESIGN.md section 4 allows, each run through the real CLI (dist/) with the real key pinned.
 */

const VALID = 'testdata/ledgers/valid';
const BUNDLE = 'testdata/ledgers/valid-bundle';
const PUB = join(VALID, 'ledger.pub');

interface Verified {
  status: number | null;
  report: { valid: boolean; defect?: { code: string; seq?: number; offset?: number; file?: string; message: string } };
  stderr: string;
}

function verify(target: string): Promise<Verified> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'verify-export', target, '--pubkey', PUB, '--json'], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000, killSignal: 'SIGKILL' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status, signal) => {
      if (signal !== null) return reject(new Error(`svc verify-export ${target} did not finish (${signal})`));
      resolve({ status, report: JSON.parse(stdout) as Verified['report'], stderr });
    });
  });
}

async function copyOf(source: string): Promise<string> {
  const target = join(await tempDir('svc-audit-'), 'copy');
  await cp(source, target, { recursive: true });
  return target;
}

const sha256Hex = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** The standard base64 text in its URL-safe spelling, without padding: the same bytes to a DSSE decoder. */
const urlSafe = (text: string): string => text.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

describe('attestation.json must be byte for byte the envelope svc writes', () => {
  it('the signature respelled in URL-safe base64 (same bytes, different file): attestation_signature_invalid', async () => {
    const bundle = await copyOf(BUNDLE);
    const path = join(bundle, 'attestation.json');
    const text = await readFile(path, 'utf8');
    const sig = (JSON.parse(text) as DsseEnvelope).signatures[0]?.sig as string;
    expect(urlSafe(sig)).not.toBe(sig);
    await writeFile(path, text.replace(sig, urlSafe(sig)));
    const result = await verify(bundle);
    expect(result.status).toBe(1);
    expect(result.report.defect).toMatchObject({ code: 'attestation_signature_invalid', file: 'attestation.json' });
  });

  it('the payload respelled without its padding: attestation_signature_invalid', async () => {
    const bundle = await copyOf(BUNDLE);
    const path = join(bundle, 'attestation.json');
    const text = await readFile(path, 'utf8');
    const payload = (JSON.parse(text) as DsseEnvelope).payload;
    expect(urlSafe(payload)).not.toBe(payload);
    await writeFile(path, text.replace(payload, urlSafe(payload)));
    const result = await verify(bundle);
    expect(result.status).toBe(1);
    expect(result.report.defect).toMatchObject({ code: 'attestation_signature_invalid', file: 'attestation.json' });
  });
});

describe('a bundle holds exactly the files of DESIGN.md section 4, every one checked', () => {
  for (const name of ['notes.txt', 'projections/extra.jsonl']) {
    it(`${name}, attested by the real key and then edited: subject_digest_mismatch, never valid`, async () => {
      const bundle = await copyOf(BUNDLE);
      await writeFile(join(bundle, name), 'as attested\n');
      const path = join(bundle, 'attestation.json');
      const statement = JSON.parse(Buffer.from((JSON.parse(await readFile(path, 'utf8')) as DsseEnvelope).payload, 'base64').toString('utf8')) as InTotoStatement;
      statement.subject.push({ name, digest: { sha256: sha256Hex(await readFile(join(bundle, name))) } });
      await writeFile(path, `${canonicalJson(signStatement(fixtureLedgerKey, statement))}\n`);
      await writeFile(join(bundle, name), 'edited after signing\n');
      const result = await verify(bundle);
      expect(result.status).toBe(1);
      expect(result.report.defect).toMatchObject({ code: 'subject_digest_mismatch', file: name });
    });
  }
});
