import { execFile, execFileSync } from 'node:child_process';
import { chmod, cp, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, runCli, type CliResult } from '../support/cli.js';
import { tempDir } from '../support/ledger.js';

const TRUNCATED = 'testdata/ledgers/truncated-below-checkpoint';
const VALID = 'testdata/ledgers/valid';

interface ErrorBody {
  error: { code: string; message: string; defect?: { code: string; seq?: number; offset?: number } };
}

/** A copy of a ledger fixture with the fixture's signing key in `<dir>/keys`, so that export can sign. */
async function copyWithKey(fixture: string): Promise<{ dir: string; ledger: string }> {
  const dir = await tempDir();
  await cp(fixture, dir, { recursive: true });
  await mkdir(join(dir, 'keys'));
  // The fixture key is a public test key; the generator's seed reproduces it here.
  const { fixtureLedgerKey } = await import('../../scripts/generate-fixtures.js');
  const { writeKeyFile } = await import('../../src/actionpass/keys.js');
  await writeKeyFile(join(dir, 'keys'), fixtureLedgerKey);
  return { dir, ledger: join(dir, 'ledger.jsonl') };
}

/**
 * runCli with a deadline, after which the child is killed (code null): a reader stuck on a FIFO
 * must fail the test, not hang the run (as the old code did). `as` runs it as another user.
 */
function runCliWithin(timeoutMs: number, args: string[], as?: { uid: number; gid: number }): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: timeoutMs, ...as }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr });
    });
  });
}

function expectNoStackTrace(result: CliResult): void {
  expect(result.stdout + result.stderr).not.toMatch(/\n\s+at /);
}

describe('a ledger cut below its checkpoint file (20 records, the sidecar covers 68)', () => {
  it('svc export refuses it with root_mismatch, exit 1, and leaves no bundle or partial bundle behind', async () => {
    const { dir, ledger } = await copyWithKey(TRUNCATED);
    const before = (await readdir(dir)).sort();

    const json = await runCli(['export', '--ledger', ledger, '--out', join(dir, 'bundle'), '--json']);
    expect(json.code, json.stderr).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'root_mismatch', defect: { code: 'root_mismatch', seq: 20 } } });
    const text = await runCli(['export', '--ledger', ledger, '--out', join(dir, 'bundle')]);
    expect(text.code).toBe(1);
    expect(text.stdout).not.toContain('exported');
    expect(text.stderr).toMatch(/not exported: root_mismatch at seq 20, byte offset \d+: .*checkpoint file .* covers 68.*\[root_mismatch\]/);
    expectNoStackTrace(text);

    // Neither the bundle nor its sibling staging directory (<out>.partial-*) exists.
    expect((await readdir(dir)).sort()).toEqual(before);
  });

  it('svc prove-equivalence --ledger reports root_mismatch with exit 1 and writes no proof', async () => {
    const { dir, ledger } = await copyWithKey(TRUNCATED);
    const result = await runCli(['prove-equivalence', '--ledger', ledger, '--out', join(dir, 'proof.json'), '--json']);
    expect(result.code, result.stderr).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ holds: false, defect: { code: 'root_mismatch', seq: 20 } });
    expect(await readdir(dir)).not.toContain('proof.json');
    const text = await runCli(['prove-equivalence', '--ledger', ledger]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('root_mismatch at seq 20');
    expect(text.stderr).not.toContain('internal_error');
  });

  it('svc prove-equivalence --export on a bundle cut at a line boundary reports root_mismatch with exit 1', async () => {
    const bundle = join(await tempDir(), 'bundle');
    await cp('testdata/ledgers/valid-bundle', bundle, { recursive: true });
    const lines = (await readFile(join(bundle, 'ledger.jsonl'), 'utf8')).split('\n');
    await writeFile(join(bundle, 'ledger.jsonl'), `${lines.slice(0, 20).join('\n')}\n`);
    const result = await runCli(['prove-equivalence', '--export', bundle, '--json']);
    expect(result.code, result.stderr).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ holds: false, defect: { code: 'root_mismatch', seq: 20 } });
    expectNoStackTrace(result);
  });

  it('svc replay shows the records that are left, then says records were removed, with exit 1', async () => {
    const ledger = join(TRUNCATED, 'ledger.jsonl');
    const text = await runCli(['replay', '--ledger', ledger]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('20 of 20 records shown');
    expect(text.stdout).toMatch(/ledger defect root_mismatch at seq 20, byte offset \d+: the ledger has 20 valid records but its checkpoint file .* covers 68/);
    const json = await runCli(['replay', '--ledger', ledger, '--json']);
    expect(json.code).toBe(1);
    expect(json.stdout.trim().split('\n')).toHaveLength(20);
    expect(json.stderr).toContain('root_mismatch');
  });
});

describe('bad --ledger input is refused alike by replay, export and prove-equivalence', () => {
  const commands: [string, (ledger: string, dir: string) => string[]][] = [
    ['replay', (ledger) => ['replay', '--ledger', ledger, '--json']],
    ['export', (ledger, dir) => ['export', '--ledger', ledger, '--out', join(dir, 'bundle'), '--json']],
    ['prove-equivalence', (ledger) => ['prove-equivalence', '--ledger', ledger, '--json']],
  ];
  const inputs: [string, (dir: string) => Promise<string>, string][] = [
    ['a missing path', async (dir) => join(dir, 'missing.jsonl'), 'not_found'],
    ['a directory', async (dir) => dir, 'path_not_file'],
    ['a FIFO', async (dir) => {
      execFileSync('mkfifo', [join(dir, 'fifo.jsonl')]);
      return join(dir, 'fifo.jsonl');
    }, 'path_not_file'],
    ['a symbolic link to a valid ledger', async (dir) => {
      await symlink(join(dir, 'ledger.jsonl'), join(dir, 'link.jsonl'));
      return join(dir, 'link.jsonl');
    }, 'path_is_symlink'],
  ];
  for (const [command, args] of commands) {
    for (const [name, make, code] of inputs) {
      it(`${command} on ${name}: exit 2, ${code}`, async () => {
        const { dir } = await copyWithKey(VALID);
        const result = await runCliWithin(10_000, args(await make(dir), dir));
        expect(result.code, result.stderr).toBe(2);
        expect((JSON.parse(result.stdout) as ErrorBody).error.code).toBe(code);
        expectNoStackTrace(result);
      });
    }

    it(`${command} on a file it may not read: exit 2, unreadable`, async () => {
      const { dir, ledger } = await copyWithKey(VALID);
      await chmod(ledger, 0o000);
      // root reads a mode-000 file all the same (CI runs as root), so there the command runs as nobody.
      const asRoot = process.getuid?.() === 0;
      if (asRoot) await chmod(dir, 0o755);
      const result = await runCliWithin(10_000, args(ledger, dir), asRoot ? { uid: 65_534, gid: 65_534 } : undefined);
      expect(result.code).toBe(2);
      expect((JSON.parse(result.stdout) as ErrorBody).error.code).toBe('unreadable');
    });

    it(`${command} with a FIFO as the checkpoint file: exit 1, checkpoint_signature_invalid, no hang`, async () => {
      const { dir, ledger } = await copyWithKey(VALID);
      await rm(`${ledger}.checkpoint`);
      execFileSync('mkfifo', [`${ledger}.checkpoint`]);
      const result = await runCliWithin(10_000, args(ledger, dir));
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout + result.stderr).toContain('checkpoint_signature_invalid');
    });
  }

  it('prove-equivalence --export refuses a symbolic link to a bundle', async () => {
    const dir = await tempDir();
    await symlink(join(process.cwd(), 'testdata/ledgers/valid-bundle'), join(dir, 'bundle'));
    const result = await runCli(['prove-equivalence', '--export', join(dir, 'bundle'), '--json']);
    expect(result.code).toBe(2);
    expect((JSON.parse(result.stdout) as ErrorBody).error.code).toBe('path_is_symlink');
  });
});
