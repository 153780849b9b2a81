/**
 * The torn-tail rule of the opening scan (ledger-scan.ts, docs/ledger-format.md section 7.5) on
 * damage before the last line: zero-filled pages inside the unsynced window are recovered like a
 * torn tail; altered content, damage further back and damage that acknowledged records follow are
 * refused with seq and byte offset. The power-loss suite covers the states a crash produces; these
 * are the hand-made edges.
 */
import { cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_UNSYNCED_BYTES, MAX_UNSYNCED_RECORDS, scanLedger } from '../../src/events/ledger-scan.js';
import { LedgerWriter } from '../../src/events/ledger-writer.js';
import { fixtureLedgerKey } from '../../scripts/generate-fixtures.js';
import { allowFlow } from '../../scripts/sample-flows.js';
import { chatEvent, flowContext, openLedger, tempDir } from '../support/ledger.js';

const FIXTURE = join(import.meta.dirname, '..', '..', 'testdata', 'ledgers', 'valid');

/** Byte offset of every line of `bytes`, and the end. */
function lineOffsets(bytes: Buffer): number[] {
  const offsets = [0];
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) offsets.push(at + 1);
  return offsets;
}

/**
 * The valid fixture (68 records, checkpoints every 16, the last at seq 67) as a power loss with
 * two commits in flight can leave it: part of records 62 and 63 zero-filled, 64 to 67 intact.
 * `edit` changes the bytes further. Without its sidecar unless asked: the sidecar covers all 68
 * records, which would mean they were acknowledged.
 */
async function damagedFixture(options: { sidecar?: boolean; edit?: (bytes: Buffer, offsets: number[]) => Buffer } = {}) {
  const dir = await tempDir();
  await cp(FIXTURE, dir, { recursive: true });
  const path = join(dir, 'ledger.jsonl');
  if (!options.sidecar) await rm(`${path}.checkpoint`);
  let bytes: Buffer = await readFile(path);
  const offsets = lineOffsets(bytes);
  bytes.fill(0, (offsets[62] as number) + 100, (offsets[63] as number) + 300);
  if (options.edit) bytes = options.edit(bytes, offsets);
  await writeFile(path, bytes);
  return { dir, path, bytes, offsets, open: () => LedgerWriter.open({ path, key: fixtureLedgerKey, checkpointEveryMs: 0 }) };
}

/** Overwrites line `seq` from just after `after` with `to`, keeping every length. */
function alter(bytes: Buffer, offsets: number[], seq: number, after: string, to: string): Buffer {
  const line = bytes.subarray(offsets[seq], offsets[seq + 1]);
  const at = line.indexOf(after);
  expect(at).toBeGreaterThanOrEqual(0);
  line.write(to, at + Buffer.byteLength(after));
  return bytes;
}

describe('ledger scan: damage before the last line', () => {
  it('given zero-filled bytes in records 62 and 63 with 64 to 67 intact, when opened, then quarantines from record 62 on and records ledger.recovered', async () => {
    const { dir, path, bytes, offsets, open } = await damagedFixture();
    const scan = await scanLedger(path);
    expect(scan).toMatchObject({ kind: 'valid', validBytes: offsets[62], tornTail: { offset: offsets[62] } });
    const reason = scan.kind === 'valid' ? scan.tornTail?.reason : undefined;
    expect(reason).toBe('zero-filled bytes before the end of the file (pages lost in a power loss during unacknowledged writes), then 4 intact record(s) written after them');

    const writer = await open();
    await writer.close();
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    const original = bytes.subarray(0, offsets[62]).toString('utf8').trimEnd().split('\n');
    expect(lines.slice(0, 62)).toEqual(original);
    const recovered = JSON.parse(lines[62] as string) as { seq: number; type: string; data: { truncatedBytes: number; quarantineFile: string; reason: string } };
    expect(recovered).toMatchObject({ seq: 62, type: 'ledger.recovered', data: { truncatedBytes: bytes.length - (offsets[62] as number), reason } });
    expect(await readFile(join(dir, recovered.data.quarantineFile))).toEqual(bytes.subarray(offsets[62]));
    expect(JSON.parse(lines[63] as string)).toMatchObject({ seq: 63, type: 'ledger.checkpoint' });
    expect(lines).toHaveLength(64);
    expect(await scanLedger(path)).toMatchObject({ kind: 'valid', validBytes: (await readFile(path)).length });

    // A second opening finds nothing to recover and changes nothing.
    const settled = [await readFile(path), await readFile(`${path}.checkpoint`), await readdir(join(dir, 'quarantine'))];
    await (await open()).close();
    expect([await readFile(path), await readFile(`${path}.checkpoint`), await readdir(join(dir, 'quarantine'))]).toEqual(settled);
  });

  it('given the same damage under a sidecar that covers the damaged records, then refuses: they were acknowledged', async () => {
    const { open } = await damagedFixture({ sidecar: true });
    await expect(open()).rejects.toMatchObject({ code: 'ledger_corrupt', message: expect.stringContaining('root_mismatch at seq 62') });
  });

  const altered: Array<[string, (bytes: Buffer, offsets: number[]) => Buffer, RegExp, number]> = [
    // Record 65's content changed, well-formed: its hash no longer matches the prevHash of 66.
    ['a changed but well-formed record', (bytes, offsets) => alter(bytes, offsets, 65, '"ruleId":"', 'E'), /chain_broken at seq 66, byte offset (\d+)/, 66],
    ['a record with a wrong prevHash', (bytes, offsets) => alter(bytes, offsets, 65, '"prevHash":"sha256:', '0000'), /chain_broken at seq 65, byte offset (\d+)/, 65],
    ['a checkpoint whose note signature is bad', (bytes, offsets) => {
      const line = bytes.subarray(offsets[67], offsets[68]);
      const signature = line.indexOf('\\n\\n— ');
      const at = line.indexOf('=\\n"', signature) - 10;
      line.write(line[at] === 0x41 ? 'B' : 'A', at);
      return bytes;
    }, /checkpoint_signature_invalid at seq 67, byte offset (\d+)/, 67],
    ['a line of text that is not a record', (bytes, offsets) => alter(bytes, offsets, 64, '', 'not json!'), /not_canonical at seq \?, byte offset (\d+)/, 64],
  ];
  for (const [what, edit, expected, line] of altered) {
    it(`given zero-filled bytes followed by ${what}, then refuses and says where`, async () => {
      const { offsets, open } = await damagedFixture({ edit });
      const error = await open().then(
        () => undefined,
        (failure: unknown) => failure as { code: string; message: string },
      );
      expect(error?.code).toBe('ledger_corrupt');
      const match = expected.exec(error?.message ?? '');
      expect(match, error?.message).not.toBeNull();
      expect(Number(match?.[1])).toBe(offsets[line]);
    });
  }

  it(`given zero-filled bytes followed by more than ${MAX_UNSYNCED_RECORDS} intact records, then refuses: a power loss leaves fewer unsynced`, async () => {
    const path = join(await tempDir(), 'ledger.jsonl');
    const writer = await openLedger(path);
    for (let round = 0; round < 3; round += 1) await writer.appendBatch(Array.from({ length: 30 }, (_unused, index) => chatEvent(`act_${round}_${index}`)));
    await writer.close();
    await rm(`${path}.checkpoint`);
    const pristine = await readFile(path);
    const bytes = Buffer.from(pristine);
    const offsets = lineOffsets(bytes);
    const records = offsets.length - 1;
    expect(records - 11).toBeGreaterThan(MAX_UNSYNCED_RECORDS);
    bytes.fill(0, (offsets[10] as number) + 50, (offsets[10] as number) + 60);
    await writeFile(path, bytes);
    await expect(openLedger(path)).rejects.toMatchObject({ code: 'ledger_corrupt', message: expect.stringContaining(`not_canonical at seq 10, byte offset ${offsets[10]}: line is not JSON; not a torn tail: record ${10 + MAX_UNSYNCED_RECORDS} follows the damage, and at most ${MAX_UNSYNCED_RECORDS} records`) });
    // The same damage among the last records is recovered.
    const nearEnd = records - 5;
    bytes.set(pristine.subarray(offsets[10], offsets[11]), offsets[10]);
    bytes.fill(0, (offsets[nearEnd] as number) + 50, (offsets[nearEnd] as number) + 60);
    await writeFile(path, bytes);
    const reopened = await openLedger(path);
    expect(reopened.size).toBe(nearEnd + 1);
    await reopened.close();
  });

  it(`given zero-filled bytes more than ${MAX_UNSYNCED_BYTES} bytes before the end, then refuses: a power loss damages only the last writes`, async () => {
    const path = join(await tempDir(), 'ledger.jsonl');
    const writer = await openLedger(path);
    const big = 'x'.repeat(1_000_000);
    for (let index = 0; index < 10; index += 1) await writer.append(allowFlow(flowContext(), `act_big_${index}`, 0, big)[0] as never);
    await writer.close();
    await rm(`${path}.checkpoint`);
    const bytes = await readFile(path);
    const offsets = lineOffsets(bytes);
    expect(bytes.length - (offsets[2] as number)).toBeGreaterThan(MAX_UNSYNCED_BYTES);
    bytes.fill(0, (offsets[2] as number) + 4096, (offsets[2] as number) + 8192);
    await writeFile(path, bytes);
    await expect(openLedger(path)).rejects.toMatchObject({ code: 'ledger_corrupt', message: expect.stringContaining(`not_canonical at seq 2, byte offset ${offsets[2]}: line is not JSON; not a torn tail: the damage starts ${bytes.length - (offsets[2] as number)} bytes before the end of the file`) });
  });
});
