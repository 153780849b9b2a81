/**
 * Commands that read a ledger without the writer's lock (replay, export) apply the writer's own
 * torn-tail rule (docs/ledger-format.md 7.5): a power loss with two commits in flight can leave
 * zero-filled pages inside the earlier batch and intact records after them. That is skipped like
 * a torn final line, as the writer would quarantine it; when the checkpoint file covers those
 * records (they were acknowledged), it is a defect.
 */
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { fixtureLedgerKey } from '../../scripts/generate-fixtures.js';
import { writeKeyFile } from '../../src/actionpass/keys.js';
import { tempDir } from '../support/ledger.js';

const FIXTURE = 'testdata/ledgers/valid';

/** The valid fixture (68 records, its key in `keys/` for export) with part of records 62 and 63 zero-filled and 64 to 67 intact. */
async function damagedLedger(options: { sidecar: boolean }): Promise<{ dir: string; ledger: string; offset62: number }> {
  const dir = await tempDir();
  await cp(FIXTURE, dir, { recursive: true });
  await mkdir(join(dir, 'keys'));
  await writeKeyFile(join(dir, 'keys'), fixtureLedgerKey);
  const ledger = join(dir, 'ledger.jsonl');
  if (!options.sidecar) await rm(`${ledger}.checkpoint`);
  const bytes = await readFile(ledger);
  const offsets = [0];
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) offsets.push(at + 1);
  bytes.fill(0, (offsets[62] as number) + 100, (offsets[63] as number) + 300);
  await writeFile(ledger, bytes);
  return { dir, ledger, offset62: offsets[62] as number };
}

describe('zero-filled pages before the last line, read without the lock', () => {
  it('svc replay shows the 62 records before them and names the torn tail; exit 0', async () => {
    const { ledger, offset62 } = await damagedLedger({ sidecar: false });
    const run = await runCli(['replay', '--ledger', ledger]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('62 of 62 records shown');
    expect(run.stdout).toContain(`torn tail from byte offset ${offset62}`);
  });

  it('svc export leaves them out, and the bundle verifies', async () => {
    const { dir, ledger, offset62 } = await damagedLedger({ sidecar: false });
    const out = join(dir, 'bundle');
    const exported = await runCli(['export', '--ledger', ledger, '--out', out, '--json']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout)).toMatchObject({ size: 62, skippedTornTail: { offset: offset62 } });
    const verified = await runCli(['verify-export', out, '--json']);
    expect(verified.code, verified.stdout).toBe(0);
  });

  it('is a defect when the checkpoint file covers the damaged records', async () => {
    const { ledger } = await damagedLedger({ sidecar: true });
    const run = await runCli(['replay', '--ledger', ledger]);
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).toContain('root_mismatch');
  });
});
