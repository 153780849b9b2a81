import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { generateSigningKey } from '../../src/actionpass/keys.js';
import { canonicalJson, hashCanonical } from '../../src/events/canonical.js';
import type { LedgerEvent } from '../../src/events/catalogue.js';
import { LedgerWriter } from '../../src/events/ledger-writer.js';
import type { DsseEnvelope } from '../../src/evidence/attestation.js';
import { exportLedger } from '../../src/evidence/export-ledger.js';
import { fixtureLedgerKey } from '../../scripts/generate-fixtures.js';
import { allowFlow } from '../../scripts/sample-flows.js';
import { BUNDLE, copyOf, resign, VALID, verify } from '../support/verify-export.js';
import { flowContext } from '../support/ledger.js';

/**
 * Each failure code of DESIGN.md section 4 that only a deliberate edit reaches, produced through
 * the real `svc verify-export` (a child process running dist/), with its exit status and location.
 */

/** The note with one byte of its Ed25519 signature changed; the key name and key id still name the ledger key. */
function withBadSignature(note: string): string {
  const match = /^(\u2014 \S+ )(\S+)$/m.exec(note);
  if (!match) throw new Error('no signature line');
  const bytes = Buffer.from(match[2] as string, 'base64');
  bytes[20] = (bytes[20] as number) ^ 0xff;
  return note.replace(match[0], `${match[1]}${bytes.toString('base64')}`);
}

describe('attestation.json: a damaged file is attestation_signature_invalid, with --pubkey or without', () => {
  const damaged: [string, (text: string) => string][] = [
    ['cut in half', (text) => text.slice(0, text.length >> 1)],
    ['JSON nested 300,000 levels deep', () => `${'['.repeat(300_000)}${']'.repeat(300_000)}\n`],
    ['one byte of the signature changed', (text) => {
      const envelope = JSON.parse(text) as DsseEnvelope;
      const sig = Buffer.from(envelope.signatures[0]?.sig as string, 'base64');
      sig[7] = (sig[7] as number) ^ 0x01;
      return `${canonicalJson({ ...envelope, signatures: [{ ...envelope.signatures[0], sig: sig.toString('base64') }] })}\n`;
    }],
  ];
  for (const [what, damage] of damaged) {
    for (const pinned of [true, false]) {
      it(`${what}, ${pinned ? 'key pinned' : 'no key pinned'}`, async () => {
        const bundle = await copyOf(BUNDLE);
        await writeFile(join(bundle, 'attestation.json'), damage(await readFile(join(bundle, 'attestation.json'), 'utf8')));
        const result = await verify(bundle, { pinned });
        expect(result.status).toBe(1);
        expect(result.report.defect).toMatchObject({ code: 'attestation_signature_invalid', file: 'attestation.json' });
        expect(result.stderr).toBe('');
      });
    }
  }

  it('signed by another key: key_untrusted once the real key is pinned, attestation_signature_invalid without a pin; a keyid-less envelope is never "another key"', async () => {
    const bundle = await copyOf(BUNDLE);
    const other = generateSigningKey(fixtureLedgerKey.name);
    await resign(bundle, other);
    const pinned = await verify(bundle);
    expect(pinned.status).toBe(1);
    expect(pinned.report.defect).toMatchObject({ code: 'key_untrusted', file: 'attestation.json' });
    expect(pinned.report.defect?.message).toContain('names another key');
    expect((await verify(bundle, { pinned: false })).report.defect).toMatchObject({ code: 'attestation_signature_invalid', file: 'attestation.json' });

    // The same envelope without its keyid says nothing about who signed it.
    const envelope = JSON.parse(await readFile(join(bundle, 'attestation.json'), 'utf8')) as DsseEnvelope;
    await writeFile(join(bundle, 'attestation.json'), `${canonicalJson({ ...envelope, signatures: [{ sig: envelope.signatures[0]?.sig }] })}\n`);
    expect((await verify(bundle)).report.defect).toMatchObject({ code: 'attestation_signature_invalid', file: 'attestation.json' });
  });
});

describe('projection_mismatch, equivalence_mismatch and checkpoint_signature_invalid through verify-export', () => {
  it('a projection edited after export and re-signed with the real key: projection_mismatch in that file', async () => {
    const bundle = await copyOf(BUNDLE);
    const decisions = join(bundle, 'projections', 'decisions.jsonl');
    const text = await readFile(decisions, 'utf8');
    expect(text).toContain('"decision":"deny"');
    await writeFile(decisions, text.replace('"decision":"deny"', '"decision":"allow"'));
    await resign(bundle);
    const result = await verify(bundle);
    expect(result.status).toBe(1);
    expect(result.report.defect).toMatchObject({ code: 'projection_mismatch', file: 'projections/decisions.jsonl' });
  });

  it('an execution whose executed payload differs from the approved one, appended by the real writer: equivalence_mismatch at its seq, in the ledger and in its export', async () => {
    const dir = await copyOf(VALID);
    const ledger = join(dir, 'ledger.jsonl');
    const before = (await readFile(ledger)).length;
    const writer = await LedgerWriter.open({ path: ledger, key: fixtureLedgerKey, checkpointEveryMs: 0 });
    const events = allowFlow(flowContext(), 'act_swapped', writer.size);
    const execution = events[3] as Extract<LedgerEvent, { type: 'execution.completed' }>;
    expect(execution.type).toBe('execution.completed');
    execution.data.executedPayloadHash = hashCanonical({ channel: 'eng', text: 'deploy finished; also rotate nothing' });
    const receipts = await writer.appendBatch(events);
    await writer.close();
    const seq = receipts[3]?.seq as number;
    // Records 68 to 70 are the action, its decision and its pass; their lines sit before the execution's.
    const offset = before + (await readFile(ledger)).subarray(before).toString('utf8').split('\n').slice(0, seq - 68).reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);

    const bare = await verify(ledger);
    expect(bare.status).toBe(1);
    expect(bare.report.defect).toMatchObject({ code: 'equivalence_mismatch', seq, offset });
    expect(bare.report.defect?.message).toContain('act_swapped');

    const bundle = join(dir, 'bundle');
    await exportLedger({ ledgerPath: ledger, outDir: bundle, key: fixtureLedgerKey });
    const exported = await verify(bundle);
    expect(exported.status).toBe(1);
    expect(exported.report.defect).toMatchObject({ code: 'equivalence_mismatch', seq, offset, file: 'ledger.jsonl' });
  });

  it('a bundle checkpoint whose signature does not verify (re-attested with the real key): checkpoint_signature_invalid', async () => {
    const bundle = await copyOf(BUNDLE);
    await writeFile(join(bundle, 'checkpoint'), withBadSignature(await readFile(join(bundle, 'checkpoint'), 'utf8')));
    await resign(bundle);
    const result = await verify(bundle);
    expect(result.status).toBe(1);
    expect(result.report.defect).toMatchObject({ code: 'checkpoint_signature_invalid', file: 'checkpoint' });
  });

  it('a ledger sidecar whose signature does not verify: checkpoint_signature_invalid in the sidecar', async () => {
    const dir = await copyOf(VALID);
    const sidecar = join(dir, 'ledger.jsonl.checkpoint');
    await writeFile(sidecar, withBadSignature(await readFile(sidecar, 'utf8')));
    const result = await verify(join(dir, 'ledger.jsonl'));
    expect(result.status).toBe(1);
    expect(result.report.defect).toMatchObject({ code: 'checkpoint_signature_invalid', file: sidecar });
  });
});

describe('a checkpoint sidecar that is not a regular file is refused at once, never followed or waited on', () => {
  const cases: [string, (sidecar: string) => Promise<void>][] = [
    ['a FIFO', (sidecar) => promisify(execFile)('mkfifo', [sidecar]).then(() => undefined)],
    ['a symbolic link to the real note', (sidecar) => symlink(join(process.cwd(), VALID, 'ledger.jsonl.checkpoint'), sidecar)],
    ['a dangling symbolic link', (sidecar) => symlink(join(sidecar, '..', 'nowhere'), sidecar)],
    ['a directory', (sidecar) => mkdir(sidecar)],
    ['a file larger than any note (64 KiB + 1)', (sidecar) => writeFile(sidecar, Buffer.alloc(64 * 1024 + 1, 0x61))],
  ];
  for (const [what, make] of cases) {
    it(`${what}: checkpoint_signature_invalid, exit 1`, async () => {
      const dir = await copyOf(VALID);
      const sidecar = join(dir, 'ledger.jsonl.checkpoint');
      await rm(sidecar);
      await make(sidecar);
      const result = await verify(join(dir, 'ledger.jsonl'), { ms: 10_000 });
      expect(result.status).toBe(1);
      expect(result.report.defect).toMatchObject({ code: 'checkpoint_signature_invalid', file: sidecar });
      expect(result.stderr).toBe('');
    });
  }

  it('a FIFO in place of a bundle file: subject_digest_mismatch, exit 1', async () => {
    const bundle = await copyOf(BUNDLE);
    await rm(join(bundle, 'checkpoint'));
    await promisify(execFile)('mkfifo', [join(bundle, 'checkpoint')]);
    const result = await verify(bundle, { ms: 10_000 });
    expect(result.status).toBe(1);
    expect(result.report.defect).toMatchObject({ code: 'subject_digest_mismatch', file: 'checkpoint' });
  });
});
