import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHookEngine, type HookEngine } from './hook-engine.js';

/**
 * `rg` leaves hidden files and directories out of the trees it walks unless told otherwise, so
 * `rg TODO` in a workspace holding `.env` and `.svc/keys` reads neither, while `rg --hidden`,
 * `-uu`, a glob, or an options file that may say so reads them. A protected file that is not
 * hidden (a key under `config/`) is read either way. Real files; the real engine decides.
 */
let base: string;
let workspace: string;
let engine: HookEngine;

beforeAll(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'svc-rg-')));
  workspace = join(base, 'ws');
  mkdirSync(join(workspace, 'src'), { recursive: true });
  mkdirSync(join(workspace, '.svc/keys'), { recursive: true });
  writeFileSync(join(workspace, 'src/app.ts'), '// TODO\n');
  writeFileSync(join(workspace, '.env'), 'API_KEY=secret\n');
  writeFileSync(join(workspace, '.svc/keys/pass.json'), '{}\n');
  engine = await startHookEngine({ workspace, home: join(base, 'home') });
});

afterAll(async () => {
  await engine.close();
  rmSync(base, { recursive: true, force: true });
});

async function decisionOf(command: string): Promise<string | undefined> {
  return (await engine.decideShell(command, workspace))?.decision;
}

describe('rg and the files it skips by default', () => {
  it('searches the workspace without reading the hidden .env and .svc/keys', async () => {
    for (const command of ['rg TODO', 'rg -n TODO .', 'rg TODO src']) expect(await decisionOf(command), command).not.toBe('deny');
  });

  it('reads them when told to walk hidden or ignored files, or given a glob', async () => {
    for (const command of ['rg --hidden TODO', 'rg -uu TODO', 'rg --no-ignore --hidden TODO', "rg -g '*' TODO", 'rg TODO .env']) expect(await decisionOf(command), command).toBe('deny');
  });

  it('does not know what an options file adds, so it is not allowed silently', async () => {
    expect(await decisionOf('RIPGREP_CONFIG_PATH=rg.conf rg TODO')).not.toBe('no_opinion');
  });

  it('reads a protected file that is not hidden', async () => {
    mkdirSync(join(workspace, 'config'), { recursive: true });
    writeFileSync(join(workspace, 'config/id_rsa'), 'PRIVATE\n');
    try {
      expect(await decisionOf('rg TODO')).toBe('deny');
    } finally {
      rmSync(join(workspace, 'config'), { recursive: true, force: true });
    }
  });
});
