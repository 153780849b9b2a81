import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LedgerEvent } from '../../src/events/catalogue.js';
import { scanLedger } from '../../src/events/ledger-scan.js';
import type { Receipt } from '../../src/events/ledger-writer.js';
import { chatEvent, openLedger, tempDir } from '../support/ledger.js';

/**
 * The writer encodes each sealed line into a shared arena and writes a batch as a view of it
 * (ledger-writer.ts, encodeLine and batchBytes). These hold what reaches the file to the
 * reference: each line exactly canonicalize(record) and a newline, each receipt's hash
 * sha256(0x00 ‖ line), whatever the text (multi-byte, astral, escapes), the record sizes, how
 * appends group into batches, and where arenas end (records of up to ~48 KiB of UTF-8 fill a
 * 1 MiB arena within a few dozen appends).
 */

// Well-formed text only: a lone surrogate has no JCS form, and the writer refuses it.
const text = (maxLength: number) => fc.string({ unit: fc.oneof(fc.constantFrom('a', '"', '\\', '\n', '\u0001', '\u00e9', '\u20ac', '\ud83d\ude00', '\u2028'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })), maxLength });
const size = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 2_000, max: 5_000 }));

function rejected(actionId: string, by: string, reason: string): LedgerEvent {
  return { type: 'approval.rejected', stream: `action:${actionId}`, data: { actionId, approvalId: `apr_${actionId}`, rejectedBy: by, reason } };
}

const event = fc.oneof(
  fc.nat(1_000).map((n) => chatEvent(`act_${n}`)),
  fc.tuple(fc.nat(1_000), text(40), size.chain((n) => text(n))).map(([n, by, reason]) => rejected(`act_r${n}`, by, reason)),
);

/** Appends of one event, or of a few at once, all started together, so that commits group them as they come. */
const workload = fc.array(fc.oneof(event.map((one) => [one]), fc.array(event, { minLength: 2, maxLength: 5 })), { minLength: 1, maxLength: 60 });

async function checkFile(path: string, receipts: Receipt[]): Promise<void> {
  const bytes = await readFile(path);
  expect(bytes[bytes.length - 1]).toBe(10);
  const lines: Buffer[] = [];
  for (let start = 0; start < bytes.length; ) {
    const end = bytes.indexOf(10, start);
    lines.push(bytes.subarray(start, end));
    start = end + 1;
  }
  let previous = `sha256:${'0'.repeat(64)}`;
  lines.forEach((line, seq) => {
    const record = JSON.parse(line.toString('utf8')) as { seq: number; prevHash: string };
    expect(line.toString('utf8')).toBe(canonicalize(record));
    expect(Buffer.from(canonicalize(record) as string, 'utf8').equals(line)).toBe(true);
    expect(record.seq).toBe(seq);
    expect(record.prevHash).toBe(previous);
    previous = `sha256:${createHash('sha256').update(Buffer.of(0)).update(line).digest('hex')}`;
  });
  for (const receipt of receipts) {
    const line = lines[receipt.seq] as Buffer;
    expect(receipt.hash).toBe(`sha256:${createHash('sha256').update(Buffer.of(0)).update(line).digest('hex')}`);
  }
}

describe('ledger writer encoding', () => {
  it('writes every record as its JCS bytes and hashes exactly those, over any grouping into batches (25 workloads)', async () => {
    const dir = await tempDir();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(workload, async (appends) => {
        const path = join(dir, `ledger-${run++}.jsonl`);
        const writer = await openLedger(path, { checkpointEveryRecords: 17 });
        const sent = appends.map((events) => (events.length === 1 ? writer.append(events[0] as LedgerEvent).then((one) => [one]) : writer.appendBatch(events)));
        const receipts = (await Promise.all(sent)).flat();
        // Each append's own data, in the record its receipt names.
        const written = (await readFile(path, 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line) as { data: unknown });
        appends.flat().forEach((one, index) => expect(written[(receipts[index] as Receipt).seq]?.data).toEqual(one.data));
        await writer.close();
        await checkFile(path, receipts);
        expect((await scanLedger(path)).kind).toBe('valid');
      }),
      { numRuns: 25, seed: 4242 },
    );
  });

  it('writes batches that span two arenas whole and in order', async () => {
    const path = join(await tempDir(), 'ledger.jsonl');
    const writer = await openLedger(path);
    // 120 records of 16,384 three-byte characters (~48 KiB each, ~5.8 MiB): arenas end inside batches.
    const big = Array.from({ length: 120 }, (_, index) => rejected(`act_big_${index}`, 'user:\u20ac', `${'\u20ac'.repeat(16_383)}${index % 10}`));
    const receipts = await Promise.all(big.map((one) => writer.append(one)));
    await writer.close();
    await checkFile(path, receipts);
    expect((await scanLedger(path)).kind).toBe('valid');
  });
});
