import { cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/ledger.js';

const VALID = 'testdata/ledgers/valid';
const PUB = join(VALID, 'ledger.pub');

async function copyValid(): Promise<string> {
  const dir = await tempDir();
  await cp(VALID, dir, { recursive: true });
  return dir;
}

function noStackTrace(text: string): void {
  expect(text).not.toMatch(/\n\s+at /);
}

describe('svc replay', () => {
  it('prints a verified timeline and filters by action, agent, type and time', async () => {
    const all = await runCli(['replay', '--ledger', join(VALID, 'ledger.jsonl')]);
    expect(all.code).toBe(0);
    expect(all.stdout).toContain('BLOCKED approval_payload_hash_mismatch');
    expect(all.stdout).toMatch(/68 of 68 records shown/);

    const action = await runCli(['replay', '--ledger', join(VALID, 'ledger.jsonl'), '--action', 'act_tamper_0', '--json']);
    const rows = action.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; hash: string; data: { actionId: string } });
    expect(rows.map((row) => row.type)).toEqual(['action.received', 'policy.decided', 'execution.blocked']);
    expect(rows.every((row) => row.data.actionId === 'act_tamper_0' && /^sha256:[0-9a-f]{64}$/.test(row.hash))).toBe(true);

    const denies = await runCli(['replay', '--ledger', join(VALID, 'ledger.jsonl'), '--agent', 'agent:deployer', '--type', 'policy.decided', '--json']);
    const decisions = denies.stdout.trim().split('\n').map((line) => JSON.parse(line) as { data: { decision: string } });
    expect(decisions.map((row) => row.data.decision).sort()).toEqual(['allow', 'allow', 'allow', 'deny', 'deny', 'deny']);

    const late = await runCli(['replay', '--ledger', join(VALID, 'ledger.jsonl'), '--since', '2026-11-21T10:01:00Z', '--json']);
    expect(late.stdout.trim().split('\n').every((line) => (JSON.parse(line) as { ts: string }).ts >= '2026-11-21T10:01:00.000Z')).toBe(true);
  });

  it('ends a tampered timeline at the defect with exit status 1', async () => {
    const result = await runCli(['replay', '--ledger', 'testdata/ledgers/flipped-byte/ledger.jsonl']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('ledger defect chain_broken at seq 6');
  });

  it('rejects unknown types and malformed times as usage errors', async () => {
    const type = await runCli(['replay', '--ledger', join(VALID, 'ledger.jsonl'), '--type', 'policy.guessed']);
    expect(type.code).toBe(2);
    expect(type.stderr).toContain('unknown record type policy.guessed');
    const time = await runCli(['replay', '--ledger', join(VALID, 'ledger.jsonl'), '--since', 'yesterday']);
    expect(time.code).toBe(2);
    expect(time.stderr).toContain('--since yesterday is not an RFC 3339 time');
    // Date.parse would quietly read these as March 2 and the next day.
    for (const value of ['2026-02-30', '2026-02-30T10:00:00Z', '2026-01-01T24:00:00Z']) {
      const impossible = await runCli(['replay', '--ledger', join(VALID, 'ledger.jsonl'), '--until', value]);
      expect(impossible.code, value).toBe(2);
      expect(impossible.stderr).toContain(`--until ${value} is not an RFC 3339 time`);
    }
  });
});

describe('svc export, verify-export and prove-equivalence', () => {
  it('export, verify with the pinned key, prove, and verify the proof offline', async () => {
    const dir = await copyValid();
    await mkdir(join(dir, 'keys'));
    // The fixture key is a public test key; the generator's seed reproduces it here.
    const { fixtureLedgerKey } = await import('../../scripts/generate-fixtures.js');
    const { writeKeyFile } = await import('../../src/actionpass/keys.js');
    await writeKeyFile(join(dir, 'keys'), fixtureLedgerKey);
    const ledger = join(dir, 'ledger.jsonl');
    const before = await readFile(ledger);

    const exported = await runCli(['export', '--ledger', ledger, '--out', join(dir, 'bundle')]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('exported 68 records');
    const verified = await runCli(['verify-export', join(dir, 'bundle'), '--pubkey', PUB]);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain('VALID export bundle');
    expect(verified.stdout).toContain('6 executions equivalent, 3 blocked mismatches');

    const proved = await runCli(['prove-equivalence', '--export', join(dir, 'bundle'), '--out', join(dir, 'proof.json')]);
    expect(proved.code).toBe(0);
    expect(proved.stdout).toContain('every equivalence pair holds');
    expect(proved.stdout).toMatch(/blocked\s+act_tamper_0 .*approval_payload_hash_mismatch/);
    const checked = await runCli(['prove-equivalence', '--verify', join(dir, 'proof.json'), '--pubkey', PUB, '--json']);
    expect(checked.code).toBe(0);
    expect(JSON.parse(checked.stdout)).toMatchObject({ valid: true, holds: true, keyPinned: true });

    const proof = await readFile(join(dir, 'proof.json'), 'utf8');
    await writeFile(join(dir, 'forged.json'), proof.replace('"status":"blocked"', '"status":"equivalent"'));
    const forged = await runCli(['prove-equivalence', '--verify', join(dir, 'forged.json'), '--pubkey', PUB]);
    expect(forged.code).toBe(1);
    expect(forged.stdout).toContain('does NOT verify');

    const single = await runCli(['prove-equivalence', '--ledger', ledger, '--action', 'act_exec_1', '--json']);
    expect(JSON.parse(single.stdout)).toMatchObject({ holds: true, verdicts: [{ actionId: 'act_exec_1', status: 'equivalent' }] });
    expect(await readFile(ledger)).toEqual(before);
  });

  it('refuses to export over a non-empty directory, with a clear error and no partial bundle', async () => {
    const dir = await copyValid();
    await mkdir(join(dir, 'out'));
    await writeFile(join(dir, 'out', 'keep.txt'), 'mine');
    const result = await runCli(['export', '--ledger', join(dir, 'ledger.jsonl'), '--out', join(dir, 'out'), '--json']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'export_target_exists' } });
    expect(await readFile(join(dir, 'out', 'keep.txt'), 'utf8')).toBe('mine');
  });

  it('reports usage errors with exit status 2', async () => {
    expect((await runCli(['export'])).code).toBe(2);
    expect((await runCli(['verify-export'])).code).toBe(2);
    expect((await runCli(['verify-export', VALID, '--bogus'])).code).toBe(2);
    const badKey = await runCli(['verify-export', join(VALID, 'ledger.jsonl'), '--pubkey', 'not-a-key']);
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toContain('[pubkey_invalid]');
  });
});

describe('hostile input to verify-export', () => {
  const cases: [string, () => Promise<{ target: string }>, number, string | undefined][] = [
    ['a missing path', async () => ({ target: '/nonexistent/ledger.jsonl' }), 2, 'not_found'],
    ['a symlinked ledger', async () => {
      const dir = await tempDir();
      await symlink(join(process.cwd(), VALID, 'ledger.jsonl'), join(dir, 'link.jsonl'));
      return { target: join(dir, 'link.jsonl') };
    }, 2, 'path_is_symlink'],
    ['a bundle whose ledger is a symlink', async () => {
      const dir = join(await tempDir(), 'bundle');
      await cp('testdata/ledgers/valid-bundle', dir, { recursive: true });
      const { rm } = await import('node:fs/promises');
      await rm(join(dir, 'ledger.jsonl'));
      await symlink(join(process.cwd(), VALID, 'ledger.jsonl'), join(dir, 'ledger.jsonl'));
      return { target: dir };
    }, 1, 'subject_digest_mismatch'],
    ['an empty file', async () => {
      const dir = await tempDir();
      await writeFile(join(dir, 'ledger.jsonl'), '');
      return { target: join(dir, 'ledger.jsonl') };
    }, 1, 'genesis_invalid'],
    ['a 3 MiB line without a newline', async () => {
      const dir = await tempDir();
      await writeFile(join(dir, 'ledger.jsonl'), Buffer.alloc(3 << 20, 0x61));
      return { target: join(dir, 'ledger.jsonl') };
    }, 1, 'record_invalid'],
    ['invalid UTF-8', async () => {
      const dir = await tempDir();
      const valid = await readFile(join(VALID, 'ledger.jsonl'));
      const broken = Buffer.from(valid);
      broken.write('\xff', valid.indexOf('deployer'), 'latin1');
      await writeFile(join(dir, 'ledger.jsonl'), broken);
      return { target: join(dir, 'ledger.jsonl') };
    }, 1, 'not_canonical'],
    ['JSON nested 200,000 deep', async () => {
      const dir = await tempDir();
      await writeFile(join(dir, 'ledger.jsonl'), `${'['.repeat(200_000)}${']'.repeat(200_000)}\n`);
      return { target: join(dir, 'ledger.jsonl') };
    }, 1, 'not_canonical'],
    ['a directory that is not a bundle', async () => ({ target: await tempDir() }), 1, 'subject_digest_mismatch'],
  ];
  for (const [name, make, exitCode, code] of cases) {
    it(`${name}: exit ${exitCode}, ${code}, no stack trace`, async () => {
      const { target } = await make();
      const result = await runCli(['verify-export', target, '--json']);
      expect(result.code).toBe(exitCode);
      noStackTrace(result.stdout + result.stderr);
      const body = JSON.parse(result.stdout) as { defect?: { code: string }; error?: { code: string } };
      expect(body.defect?.code ?? body.error?.code).toBe(code);
    });
  }
});

describe('svc.yml', () => {
  it('reads the ledger path from the config, relative to the config file', async () => {
    const dir = await copyValid();
    await writeFile(join(dir, 'svc.yml'), 'tenant: org:acme\nledger:\n  path: ledger.jsonl\n');
    const result = await runCli(['replay', '--config', join(dir, 'svc.yml'), '--type', 'ledger.genesis']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('ledger svc.local/org:acme/fixture created');
  });

  it('names the line, column and key of a config error', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'svc.yml'), 'tenant: org:acme\nledger:\n  pathh: x.jsonl\n');
    const unknown = await runCli(['replay', '--config', join(dir, 'svc.yml')]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('svc.yml:3:3: ledger.pathh: unknown key pathh');
    await writeFile(join(dir, 'svc.yml'), 'tenant: acme\n');
    const tenant = await runCli(['replay', '--config', join(dir, 'svc.yml')]);
    expect(tenant.stderr).toContain('svc.yml:1:9: tenant: expected org:<name>');
    await writeFile(join(dir, 'svc.yml'), 'tenant: [unclosed\n');
    const yaml = await runCli(['replay', '--config', join(dir, 'svc.yml')]);
    expect(yaml.code).toBe(2);
    expect(yaml.stderr).toMatch(/svc\.yml:\d+:\d+: not valid YAML/);
    noStackTrace(unknown.stderr + tenant.stderr + yaml.stderr);
  });
});
