import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, runScript } from '../support/cli.js';

/**
 * The `svc` executable is svc.cjs (package.json `bin`): `svc hook` it runs from the bundled hook
 * without Node's ES module loader, everything else it hands to main.js. npm installs it as a
 * symbolic link (node_modules/.bin/svc), so it is run here through one.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; bin: { svc: string } };
const linkDir = mkdtempSync(join(tmpdir(), 'svc-bin-'));
const LINKED = join(linkDir, 'svc');
symlinkSync(CLI, LINKED);

afterAll(() => rmSync(linkDir, { recursive: true, force: true }));

describe('the svc executable', () => {
  it('is what package.json names as bin, a node script', () => {
    expect(join(ROOT, PACKAGE.bin.svc)).toBe(CLI);
    expect(readFileSync(CLI, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
  });

  it('runs every other command through main.js, from a symbolic link as npm installs it', async () => {
    const version = await runScript(LINKED, ['--version']);
    expect(version).toEqual({ code: 0, stdout: `${PACKAGE.version}\n`, stderr: '' });
    const help = await runScript(LINKED, ['hook', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: svc hook [options] <runtime>');
  });

  it('runs a hook from the bundle, and leaves arguments it does not know to commander', async () => {
    const garbage = await runScript(LINKED, ['hook', 'claude-code'], { input: 'not json' });
    expect(garbage.code).toBe(2);
    expect(garbage.stdout).toBe('');
    expect(garbage.stderr).toContain('[hook_input_invalid]');
    const unknownFlag = await runScript(LINKED, ['hook', 'claude-code', '--bogus']);
    expect(unknownFlag.code).toBe(2);
    expect(unknownFlag.stderr).toContain("unknown option '--bogus'");
    const missingValue = await runScript(LINKED, ['hook', 'claude-code', '--timeout-ms']);
    expect(missingValue).toEqual({ code: 2, stdout: '', stderr: 'svc: --timeout-ms needs a value [usage_invalid]\n' });
    const unknownRuntime = await runScript(LINKED, ['hook', 'nope', '--json'], { input: '{}' });
    expect(unknownRuntime.code).toBe(2);
    expect(JSON.parse(unknownRuntime.stdout)).toMatchObject({ error: { code: 'hook_runtime_unknown' } });
  });
});
