import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHookEngine, type HookEngine } from './hook-engine.js';

/**
 * package.json scripts are shell command lines npm, pnpm, yarn and bun run, so a script written
 * into package.json by one tool call and run by `npm test` in the next is followed as code. The
 * package is real, and so is npm: where it matters, npm is run to show that it does print the
 * secret the hook denies.
 */
let base: string;
let pkg: string;
let engine: HookEngine;

beforeAll(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'svc-package-scripts-')));
  pkg = join(base, 'pkg');
  mkdirSync(join(pkg, 'src'), { recursive: true });
  writeFileSync(join(pkg, '.env'), 'API_KEY=sk-script-secret\n');
  engine = await startHookEngine({ workspace: base, home: join(base, 'home') });
});

afterAll(async () => {
  await engine.close();
  rmSync(base, { recursive: true, force: true });
});

function writeScripts(scripts: Record<string, string>): void {
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'svc-scripts-test', version: '1.0.0', scripts }));
}

async function decisionOf(command: string, cwd = pkg): Promise<string | undefined> {
  return (await engine.decideShell(command, cwd))?.decision;
}

/** What npm prints running `args` here (scripts only; nothing is installed). */
function npm(...args: string[]): string {
  const run = spawnSync('npm', args, { cwd: pkg, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'silent', npm_config_update_notifier: 'false' } });
  return `${run.stdout}${run.stderr}`;
}

describe('package.json scripts', () => {
  it('are followed however the manager is asked to run one', async () => {
    writeScripts({ test: 'cat .env', dev: 'cat .env', postinstall: 'cat .env', prebuild: 'cat .env', build: 'tsc' });
    for (const command of ['npm test', 'npm t', 'npm run dev', 'npm run-script dev', 'npm --prefix . run dev', 'yarn dev', 'yarn run dev', 'pnpm dev', 'pnpm run dev', 'bun run dev', 'npm install', 'npm ci', 'yarn', 'npm run build', 'cd src && npm test']) {
      expect(await decisionOf(command), command).toBe('deny');
    }
    expect(npm('run', 'build')).toContain('sk-script-secret');
  });

  it('are followed with their pre and post scripts and the arguments passed after --, as npm runs them', async () => {
    writeScripts({ pretest: 'echo pre', test: 'cat', posttest: 'echo post' });
    expect(npm('test', '--', '.env')).toContain('sk-script-secret');
    expect(await decisionOf('npm test -- .env')).toBe('deny');
    expect(await decisionOf('npm test')).toBe('no_opinion');
    writeScripts({ pretest: 'cat .env', test: 'echo test' });
    expect(npm('test')).toContain('sk-script-secret');
    expect(await decisionOf('npm test')).toBe('deny');
  });

  it('run through the shell npm is told to use, which is followed too', async () => {
    writeScripts({ test: 'echo ok' });
    writeFileSync(join(pkg, 'through.sh'), '#!/bin/sh\ncat .env\n', { mode: 0o755 });
    expect(npm('test', '--script-shell', './through.sh')).toContain('sk-script-secret');
    for (const command of ['npm test --script-shell ./through.sh', 'npm_config_script_shell=./through.sh npm test', 'NPM_CONFIG_SCRIPT_SHELL=./through.sh npm test']) expect(await decisionOf(command), command).toBe('deny');
    expect(await decisionOf(`echo 'script-shell=./through.sh' > .npmrc`)).toBe('deny');
  });

  it('leave everyday scripts and other subcommands alone', async () => {
    writeScripts({ test: 'vitest run', build: 'tsc -p .', lint: 'eslint src' });
    for (const command of ['npm test', 'npm run build', 'yarn lint', 'pnpm outdated', 'yarn outdated', 'npm audit', 'npm run missing']) expect(await decisionOf(command), command).toBe('no_opinion');
  });

  it('are code known only at run time where svc cannot read them: workspaces, a name known at run time, a package.json it may not read', async () => {
    writeScripts({ test: 'echo ok' });
    for (const command of ['npm -w packages/a test', 'npm run "$SCRIPT"', 'pnpm -r test']) expect(await decisionOf(command), command).toBe('step_up');
    rmSync(join(pkg, 'package.json'));
    symlinkSync(join(pkg, '.env'), join(pkg, 'package.json'));
    try {
      expect(await decisionOf('npm test')).toBe('step_up');
    } finally {
      rmSync(join(pkg, 'package.json'));
    }
  });

  it('written by the same command line are code known only at run time', async () => {
    writeScripts({ test: 'echo ok' });
    expect(await decisionOf(`echo '{"scripts":{"test":"cat .env"}}' > package.json && npm test`)).not.toBe('no_opinion');
  });
});
