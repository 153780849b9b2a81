import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHookEngine, type HookEngine } from './hook-engine.js';

/**
 * `npm publish` sends the package directory to a registry and `npm pack` puts it in a tarball, so
 * each reads every file npm packs. Whether the package's `.env` is among them is asked of npm
 * itself (`npm pack --dry-run --json` lists what it would pack), for each way a package can keep
 * it out or let it in; the hook must deny exactly when npm packs it, except where svc cannot be
 * sure and denies anyway (a `files` glob, workspaces).
 */
let base: string;
let pkg: string;
let engine: HookEngine;

beforeAll(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'svc-npm-publishing-')));
  pkg = join(base, 'pkg');
  engine = await startHookEngine({ workspace: base, home: join(base, 'home') });
});

beforeEach(() => {
  rmSync(pkg, { recursive: true, force: true });
  mkdirSync(join(pkg, 'lib'), { recursive: true });
  writeFileSync(join(pkg, 'lib/index.js'), 'module.exports = 1;\n');
  writeFileSync(join(pkg, '.env'), 'NPM_TOKEN=secret\n');
});

afterAll(async () => {
  await engine.close();
  rmSync(base, { recursive: true, force: true });
});

function writePackage(extra: Record<string, unknown> = {}): void {
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'svc-npm-test', version: '1.0.0', ...extra }));
}

/** What npm itself would pack here. */
function packedByNpm(): string[] {
  const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: pkg, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_loglevel: 'silent' } });
  return (JSON.parse(output) as [{ files: { path: string }[] }])[0].files.map((file) => file.path);
}

async function decisionOf(command: string): Promise<string | undefined> {
  return (await engine.decideShell(command, pkg))?.decision;
}

describe('npm publish and npm pack read what npm packs', () => {
  it.each([
    ['nothing keeps .env out', () => writePackage()],
    ['.gitignore lists it', () => (writePackage(), writeFileSync(join(pkg, '.gitignore'), 'node_modules/\n.env\n'))],
    ['an .npmignore replaces the .gitignore that listed it', () => (writePackage(), writeFileSync(join(pkg, '.gitignore'), '.env\n'), writeFileSync(join(pkg, '.npmignore'), 'test/\n'))],
    ['.npmignore lists it', () => (writePackage(), writeFileSync(join(pkg, '.npmignore'), '/.env\n'))],
    ['a files list leaves it out', () => writePackage({ files: ['lib'] })],
    ['a files list names it', () => writePackage({ files: ['lib', '.env'] })],
    ['main names it', () => writePackage({ files: ['lib/'], main: '.env' })],
  ])('%s: denied exactly when npm packs .env', async (_, arrange) => {
    arrange();
    const packs = packedByNpm().includes('.env');
    for (const command of ['npm publish', 'npm pack', 'npm --tag beta publish', 'npm publish --access public', 'pnpm publish', 'yarn pack']) {
      expect(await decisionOf(command), command).toBe(packs ? 'deny' : 'no_opinion');
    }
  });

  it('denies where it cannot be sure: a files glob, and workspace packages with ignore files of their own', async () => {
    writePackage({ files: ['lib/*.js'] });
    expect(packedByNpm()).not.toContain('.env');
    expect(await decisionOf('npm publish')).toBe('deny');
    writePackage();
    writeFileSync(join(pkg, '.gitignore'), '.env\n');
    expect(await decisionOf('npm publish')).toBe('no_opinion');
    expect(await decisionOf('npm publish --workspaces')).toBe('deny');
  });

  it('reads a package directory or tarball it is given, and nothing here for a package from the registry', async () => {
    writePackage();
    const results = async (command: string) => (await engine.decideShell(command, base))?.results.map((result) => result.label) ?? [];
    expect(await decisionOf('npm pack svc-npm-test-that-is-not-here')).toBe('no_opinion');
    expect(await results('npm publish pkg')).toContainEqual(expect.stringContaining(`read ${join(pkg, '.env')}`));
    writeFileSync(join(base, 'pkg.tgz'), '');
    expect(await results('npm publish pkg.tgz')).toContainEqual(expect.stringContaining(`read ${join(base, 'pkg.tgz')}`));
  });
});
