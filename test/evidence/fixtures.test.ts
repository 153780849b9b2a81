import { createHash } from 'node:crypto';
import { cp, readdir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LedgerWriter } from '../../src/events/ledger-writer.js';
import { verifyExport } from '../../src/evidence/verify-export.js';
import { fixtureLedgerKey, generateFixtures, type Expected } from '../../scripts/generate-fixtures.js';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/ledger.js';

const FIXTURES = 'testdata/ledgers';

interface Case {
  name: string;
  target: string;
  pubkey: string | undefined;
  expected: Expected;
}

async function cases(): Promise<Case[]> {
  const found: Case[] = [];
  for (const entry of await readdir(FIXTURES, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      const file = join(FIXTURES, entry.name, 'expected.json');
      const present = await stat(file).then(() => true, () => false);
      if (!present) continue;
      const expected = JSON.parse(await readFile(file, 'utf8')) as Expected;
      found.push({ name: entry.name, target: join(FIXTURES, entry.name, expected.verify), pubkey: expected.pubkey && join(FIXTURES, entry.name, expected.pubkey), expected });
    } else if (entry.name.endsWith('.expected.json')) {
      const expected = JSON.parse(await readFile(join(FIXTURES, entry.name), 'utf8')) as Expected;
      found.push({ name: entry.name.replace('.expected.json', ''), target: join(FIXTURES, expected.verify), pubkey: expected.pubkey && join(FIXTURES, expected.pubkey), expected });
    }
  }
  return found;
}

async function digestTree(dir: string): Promise<Record<string, string>> {
  const digests: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    digests[relative(dir, path)] = createHash('sha256').update(await readFile(path)).digest('hex');
  }
  return digests;
}

const all = await cases();

describe('ledger fixtures', () => {
  it('has a fixture for every tamper class the issue names', () => {
    expect(all.map((item) => item.name).sort()).toEqual(
      ['bundle-edited-projection', 'deleted-line', 'flipped-byte', 'non-canonical-line', 'rechained-other-key', 'swapped-lines', 'torn-tail', 'truncated-below-checkpoint', 'valid', 'valid-bundle'].sort(),
    );
  });

  for (const item of all) {
    it(`svc verify-export on ${item.name}: ${item.expected.valid ? 'valid' : `${item.expected.code}${item.expected.seq !== undefined ? ` at seq ${item.expected.seq}` : ''}`}`, async () => {
      const before = await digestTree(FIXTURES);
      const result = await runCli(['verify-export', item.target, ...(item.pubkey ? ['--pubkey', item.pubkey] : []), '--json']);
      const report = JSON.parse(result.stdout) as { valid: boolean; defect?: { code: string; seq?: number } };
      expect(result.code).toBe(item.expected.valid ? 0 : 1);
      expect(report.valid).toBe(item.expected.valid);
      expect(report.defect?.code).toBe(item.expected.code);
      if (item.expected.seq !== undefined) expect(report.defect?.seq).toBe(item.expected.seq);
      expect(result.stderr).toBe('');
      expect(await digestTree(FIXTURES)).toEqual(before);
    });
  }

  it('the re-chained forgery verifies without a pinned key, and says the key was not pinned', async () => {
    const report = await verifyExport(join(FIXTURES, 'rechained-other-key'));
    expect(report).toMatchObject({ valid: true, keyPinned: false });
  });

  it('a writer recovers the torn-tail fixture and the result verifies', async () => {
    const dir = await tempDir();
    await cp(join(FIXTURES, 'torn-tail'), dir, { recursive: true });
    const writer = await LedgerWriter.open({ path: join(dir, 'ledger.jsonl'), key: fixtureLedgerKey, checkpointEveryMs: 0 });
    await writer.close();
    const lines = (await readFile(join(dir, 'ledger.jsonl'), 'utf8')).trimEnd().split('\n');
    expect(lines.some((line) => line.includes('"type":"ledger.recovered"'))).toBe(true);
    expect(await readdir(join(dir, 'quarantine'))).toHaveLength(1);
    expect((await verifyExport(join(dir, 'ledger.jsonl'), { pinnedKey: fixtureLedgerKey.publicKey })).valid).toBe(true);
  });

  it('regenerating the fixtures reproduces them byte for byte', async () => {
    const dir = join(await tempDir(), 'ledgers');
    await generateFixtures(dir);
    expect(await digestTree(dir)).toEqual(await digestTree(FIXTURES));
  });
});
