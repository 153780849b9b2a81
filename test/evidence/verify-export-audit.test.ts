import { createHash } from 'node:crypto';
import { readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/events/canonical.js';
import type { DsseEnvelope } from '../../src/evidence/attestation.js';
import { verifyExport } from '../../src/evidence/verify-export.js';
import { fixtureLedgerKey } from '../../scripts/generate-fixtures.js';
import { runCli } from '../support/cli.js';
import { BUNDLE, copyOf, PUB, resign, sha256Hex, VALID, verify } from '../support/verify-export.js';

/**
 * Inputs an adversarial review found `svc verify-export` accepting although they are not what
 * DESIGN.md section 4 allows, each run through the real CLI (dist/) with the real key pinned.
 */

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
      await resign(bundle, fixtureLedgerKey, async (statement) => {
        statement.subject.push({ name, digest: { sha256: sha256Hex(await readFile(join(bundle, name))) } });
      });
      await writeFile(join(bundle, name), 'edited after signing\n');
      const result = await verify(bundle);
      expect(result.status).toBe(1);
      expect(result.report.defect).toMatchObject({ code: 'subject_digest_mismatch', file: name });
    });
  }
});

describe('the text report shows what the ledger holds, never runs it on the terminal', () => {
  it('a record type that holds escape sequences drawing "VALID" over the verdict: printed escaped, exit 1', async () => {
    const dir = await copyOf(VALID);
    const ledger = join(dir, 'ledger.jsonl');
    const text = await readFile(ledger, 'utf8');
    const lines = text.split('\n').slice(0, -1);
    const last = Buffer.from(lines[lines.length - 1] as string, 'utf8');
    const prevHash = `sha256:${createHash('sha256').update(Buffer.concat([Buffer.from([0]), last])).digest('hex')}`;
    const forged = canonicalJson({ data: {}, prevHash, seq: lines.length, stream: 'ledger', ts: '2026-11-21T11:00:00.000Z', type: '\r\u001b[2K\u001b[1A\u001b[2KVALID ledger\u001b[8m\u009b2K\u202e', v: 0 });
    await writeFile(ledger, `${text}${forged}\n`);
    const result = await runCli(['verify-export', ledger, '--pubkey', PUB]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^INVALID ledger /);
    expect(result.stdout).toContain('record_invalid');
    expect(result.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(result.stdout).toContain('\\u001b[2K');
  });
});

/** The valid ledger with the executed payload hash of its first execution changed, and `then` done to the lines after it. */
async function violatedLedger(then: (lines: string[], execution: number) => void): Promise<{ ledger: string; execution: number; offsets: number[] }> {
  const dir = await copyOf(VALID);
  await rm(join(dir, 'ledger.jsonl.checkpoint'));
  const ledger = join(dir, 'ledger.jsonl');
  const lines = (await readFile(ledger, 'utf8')).split('\n').slice(0, -1);
  const execution = lines.findIndex((line) => line.includes('"type":"execution.completed"'));
  lines[execution] = (lines[execution] as string).replace(/("executedPayloadHash":"sha256:)([0-9a-f])/, (_, head: string, digit: string) => `${head}${digit === '0' ? '1' : '0'}`);
  then(lines, execution);
  await writeFile(ledger, `${lines.join('\n')}\n`);
  const offsets = lines.map((_, index) => lines.slice(0, index).reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0));
  return { ledger, execution, offsets };
}

describe('the first defect in seq order is reported, whatever the read size', () => {
  it('an execution whose pair does not hold, then a line that is not JSON: equivalence_mismatch at the execution for every chunk size', async () => {
    const { ledger, execution, offsets } = await violatedLedger((lines, at) => {
      lines[at + 1] = '{not json';
    });
    const expected = { code: 'equivalence_mismatch', seq: execution, offset: offsets[execution] };
    const cli = await verify(ledger);
    expect(cli.status).toBe(1);
    expect(cli.report.defect).toMatchObject(expected);
    const pinnedKey = Buffer.from((await readFile(PUB, 'utf8')).trim(), 'base64');
    const whole = await verifyExport(ledger, { pinnedKey });
    expect(whole.defect).toMatchObject(expected);
    for (const chunkBytes of [1, 97, offsets[execution + 1] as number, 4096, 65_536]) expect(await verifyExport(ledger, { pinnedKey, chunkBytes })).toEqual(whole);
  });
});

describe('a violation counts only from a line that passed the checks', () => {
  it('an execution line duplicated right after itself: seq_gap at the copy, not equivalence_mismatch at the seq the copy claims', async () => {
    const dir = await copyOf(VALID);
    const ledger = join(dir, 'ledger.jsonl');
    const lines = (await readFile(ledger, 'utf8')).split('\n').slice(0, -1);
    const execution = lines.findIndex((line) => line.includes('"type":"execution.completed"'));
    lines.splice(execution + 1, 0, lines[execution] as string);
    await writeFile(ledger, `${lines.join('\n')}\n`);
    const copyOffset = lines.slice(0, execution + 1).reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
    const result = await verify(ledger);
    expect(result.status).toBe(1);
    expect(result.report.defect).toMatchObject({ code: 'seq_gap', seq: execution + 1, offset: copyOffset });
  });
});

describe('a projection file is not read further than the replay it must equal', () => {
  it('projections/siem.jsonl replaced by a sparse file of 64 GiB: subject_digest_mismatch, without hashing it', async () => {
    const bundle = await copyOf(BUNDLE);
    await truncate(join(bundle, 'projections', 'siem.jsonl'), 2 ** 36);
    const result = await verify(bundle).finally(() => rm(bundle, { recursive: true, force: true }));
    expect(result.status).toBe(1);
    expect(result.report.defect).toMatchObject({ code: 'subject_digest_mismatch', file: 'projections/siem.jsonl' });
  });

  it('a projection of the replayed length but other bytes is still hashed: subject_digest_mismatch as before', async () => {
    const bundle = await copyOf(BUNDLE);
    const path = join(bundle, 'projections', 'decisions.jsonl');
    const bytes = await readFile(path);
    bytes[10] = (bytes[10] as number) ^ 0x01;
    await writeFile(path, bytes);
    const result = await verify(bundle);
    expect(result.status).toBe(1);
    expect(result.report.defect).toMatchObject({ code: 'subject_digest_mismatch', file: 'projections/decisions.jsonl' });
  });
});

describe('a pinned key must have signed something', () => {
  it('a bare ledger no checkpoint covers (its records up to the first one, no sidecar): valid unpinned with a warning, checkpoint_signature_invalid pinned', async () => {
    const dir = await copyOf(VALID);
    try {
      const lines = (await readFile(join(dir, 'ledger.jsonl'), 'utf8')).split('\n');
      const firstCheckpoint = lines.findIndex((line) => line.includes('"type":"ledger.checkpoint"'));
      await writeFile(join(dir, 'ledger.jsonl'), `${lines.slice(0, firstCheckpoint).join('\n')}\n`);
      await rm(join(dir, 'ledger.jsonl.checkpoint'));
      const unpinned = await runCli(['verify-export', join(dir, 'ledger.jsonl'), '--json']);
      expect(unpinned.code, unpinned.stderr).toBe(0);
      expect((JSON.parse(unpinned.stdout) as { warnings: string[] }).warnings.join('\n')).toContain('protected by its hash chain only');
      const pinned = await verify(join(dir, 'ledger.jsonl'));
      expect(pinned.status).toBe(1);
      expect(pinned.report.defect).toMatchObject({ code: 'checkpoint_signature_invalid' });
      expect(pinned.report.defect?.message).toContain('pinned key');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
