import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckedRecord } from '../../src/events/chain-checker.js';
import { scanLedger } from '../../src/events/ledger-scan.js';
import type { LedgerProjection, LedgerWriter } from '../../src/events/ledger-writer.js';
import { resumeFileOf } from '../../src/events/resume-point.js';
import { SvcError } from '../../src/errors.js';
import { appendSampleFlows, chatEvent, openLedger, tempDir } from '../support/ledger.js';

/** A projection that counts the records folded into it and remembers how each scan started. */
function countingProjection(): LedgerProjection & { count: number; starts: unknown[] } {
  const projection = {
    count: 0,
    starts: [] as unknown[],
    start(saved: unknown) {
      projection.starts.push(saved);
      projection.count = (saved as { count?: number } | undefined)?.count ?? 0;
      return true;
    },
    apply(_checked: CheckedRecord) {
      projection.count += 1;
    },
    save: () => ({ count: projection.count }),
  };
  return projection;
}

async function lineCount(path: string): Promise<number> {
  return (await readFile(path, 'utf8')).trimEnd().split('\n').length;
}

async function openResuming(path: string, projection = countingProjection()): Promise<{ writer: LedgerWriter; projection: ReturnType<typeof countingProjection> }> {
  // Like the enforcer: records sealed by this writer are folded too.
  return { writer: await openLedger(path, { projection, resume: true, onSealed: (checked) => projection.apply(checked) }), projection };
}

/** Reopens with resume and checks that the point was not used: the scan started empty and folded every record. */
async function expectWholeLedgerRead(path: string): Promise<void> {
  const { writer, projection } = await openResuming(path);
  await writer.close();
  expect(projection.starts).toEqual([undefined]);
  expect(projection.count).toBe(await lineCount(path));
}

async function ledgerWithResumePoint(): Promise<string> {
  const path = join(await tempDir(), 'ledger.jsonl');
  const { writer } = await openResuming(path);
  await appendSampleFlows(writer, 2);
  await writer.close();
  return path;
}

describe('ledger resume point', () => {
  it('given a clean close, when reopened with resume, then nothing before the point is read again and the chain goes on', async () => {
    const path = await ledgerWithResumePoint();
    const total = await lineCount(path);
    const { writer, projection } = await openResuming(path);
    // Resumed: the scan started from the saved projection and folded no record again.
    expect(projection.starts).toEqual([{ count: total }]);
    expect(projection.count).toBe(total);
    const receipt = await writer.append(chatEvent('act_after_resume'));
    expect(receipt.seq).toBe(total);
    await writer.close();
    expect((await scanLedger(path)).kind).toBe('valid');
  });

  it('given records appended after the point by a writer that saved none, when reopened, then only those are checked and folded', async () => {
    const path = await ledgerWithResumePoint();
    const atPoint = await lineCount(path);
    const other = await openLedger(path);
    await appendSampleFlows(other, 1);
    await other.close();
    const { writer, projection } = await openResuming(path);
    await writer.close();
    expect(projection.starts).toEqual([{ count: atPoint }]);
    expect(projection.count).toBe(await lineCount(path));
  });

  it.each([
    ['does not parse', (text: string) => text.slice(0, text.length / 2)],
    ['is of another format', (text: string) => text.replace('svc.ledger.resume.v1', 'svc.ledger.resume.v0')],
    ['names a head line the ledger does not hold there', (text: string) => text.replace(/"bytes":(\d+)/, (_, bytes: string) => `"bytes":${Number(bytes) - 1}`)],
  ])('given a resume point that %s, when reopened, then the whole ledger is read', async (_, damage) => {
    const path = await ledgerWithResumePoint();
    await writeFile(resumeFileOf(path), damage(await readFile(resumeFileOf(path), 'utf8')));
    await expectWholeLedgerRead(path);
  });

  it('given a ledger replaced by another one, when reopened, then the old point is not used', async () => {
    const path = await ledgerWithResumePoint();
    const point = await readFile(resumeFileOf(path));
    const fresh = join(await tempDir(), 'ledger.jsonl');
    const { writer: other } = await openResuming(fresh);
    await appendSampleFlows(other, 3);
    await other.close();
    await writeFile(path, await readFile(fresh));
    await writeFile(`${path}.checkpoint`, await readFile(`${fresh}.checkpoint`));
    await writeFile(resumeFileOf(path), point);
    await expectWholeLedgerRead(path);
  });

  it('given a record changed after the point, when reopened, then the ledger is refused as a full scan would', async () => {
    const path = await ledgerWithResumePoint();
    const other = await openLedger(path);
    await appendSampleFlows(other, 1);
    await other.close();
    const lines = (await readFile(path, 'utf8')).split('\n');
    const target = lines.length - 4;
    lines[target] = (lines[target] as string).replace('"seq":', '"seq": ');
    await writeFile(path, lines.join('\n'));
    const error = await openResuming(path).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SvcError);
    expect((error as SvcError).code).toBe('ledger_corrupt');
  });

  it('given a torn tail after the point, when reopened, then it is quarantined and the recovery folded', async () => {
    const path = await ledgerWithResumePoint();
    const atPoint = await lineCount(path);
    await appendFile(path, '{"data":{"trunc');
    const { writer, projection } = await openResuming(path);
    await writer.close();
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { type: string }).type).slice(atPoint)).toEqual(['ledger.recovered', 'ledger.checkpoint']);
    expect(projection.starts).toEqual([{ count: atPoint }]);
    expect((await scanLedger(path)).kind).toBe('valid');
  });

  it('trusts the records before the point: a change there is caught by a full open and by verification, not by a resumed open', async () => {
    const path = await ledgerWithResumePoint();
    const lines = (await readFile(path, 'utf8')).split('\n');
    // Same length, so the resume point still lines up: one hex digit of a hash changed.
    lines[3] = (lines[3] as string).replace(/sha256:([0-9a-f])/, (_, digit: string) => `sha256:${digit === '0' ? '1' : '0'}`);
    await writeFile(path, lines.join('\n'));
    const { writer } = await openResuming(path);
    await writer.close();
    expect((await scanLedger(path)).kind).toBe('corrupt');
    await expect(openLedger(path)).rejects.toMatchObject({ code: 'ledger_corrupt' });
  });
});
