import { createHash } from 'node:crypto';
import { cp, lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/ledger.js';

/**
 * "Nothing is modified by a verification command" (issue 2): a real `svc verify-export` run is
 * surrounded by a snapshot of the whole directory it works in, taken with lstat so that a new
 * link, a changed mode or a rewritten file with the same bytes (its mtime) shows as well.
 */

type Entry = { type: string; mode: number; size: number; mtimeMs: number; content: string };

async function snapshot(root: string): Promise<Record<string, Entry>> {
  const entries: Record<string, Entry> = {};
  // The root too: a file created and removed again still changes its directory's mtime.
  const visit = async (path: string): Promise<void> => {
    const info = await lstat(path);
    const type = info.isFile() ? 'file' : info.isDirectory() ? 'dir' : info.isSymbolicLink() ? 'link' : 'other';
    const content = type === 'file' ? createHash('sha256').update(await readFile(path)).digest('hex') : type === 'link' ? await readlink(path) : '';
    entries[relative(root, path) || '.'] = { type, mode: info.mode, size: info.size, mtimeMs: info.mtimeMs, content };
    if (type === 'dir') for (const name of await readdir(path)) await visit(join(path, name));
  };
  await visit(root);
  return entries;
}

/** Runs verify-export in `cwd` (so nothing may appear there either) and checks the snapshot is unchanged. */
async function verifyLeavesUntouched(cwd: string, target: string, expected: { status: number; code?: string }): Promise<void> {
  const before = await snapshot(cwd);
  expect(Object.keys(before).length).toBeGreaterThan(2);
  const result = await runCli(['verify-export', target, '--pubkey', join(process.cwd(), 'testdata/ledgers/valid/ledger.pub'), '--json'], { cwd });
  expect(result.code, result.stderr).toBe(expected.status);
  expect((JSON.parse(result.stdout) as { defect?: { code: string } }).defect?.code).toBe(expected.code);
  expect(await snapshot(cwd)).toEqual(before);
}

describe('verify-export modifies nothing and creates nothing', () => {
  it('on a torn-tail ledger (which a writer would quarantine and truncate): torn_line, and the directory is as it was', async () => {
    const dir = await tempDir('svc-readonly-');
    await cp('testdata/ledgers/torn-tail', dir, { recursive: true });
    await verifyLeavesUntouched(dir, join(dir, 'ledger.jsonl'), { status: 1, code: 'torn_line' });
  });

  it('on an export bundle: valid, and the bundle and the directory around it are as they were', async () => {
    const dir = await tempDir('svc-readonly-');
    await cp('testdata/ledgers/valid-bundle', join(dir, 'bundle'), { recursive: true });
    await verifyLeavesUntouched(dir, join(dir, 'bundle'), { status: 0 });
  });
});
