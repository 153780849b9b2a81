import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHookEngine, type HookEngine } from './hook-engine.js';

/**
 * Staging a tree puts its files into git's object store, where `git show` prints them later, so
 * `git add .` reads every file it stages. git leaves out what it ignores and does not track: a
 * repository whose .gitignore lists .env can `git add .`, while forcing it in, stashing with -a,
 * or a .env that is already tracked is a read of the secret. The repository is real (git init,
 * git add, git commit run by this test); the decisions come from the real engine.
 */
let base: string;
let repo: string;
let engine: HookEngine;
const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo, stdio: 'pipe' });

beforeAll(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'svc-git-staging-')));
  repo = join(base, 'repo');
  mkdirSync(join(repo, 'src'), { recursive: true });
  writeFileSync(join(repo, 'src/app.ts'), 'export {};\n');
  writeFileSync(join(repo, '.env'), 'API_KEY=secret\n');
  writeFileSync(join(repo, '.gitignore'), 'node_modules/\n.env\n');
  git('init', '-q');
  engine = await startHookEngine({ workspace: base, home: join(base, 'home') });
});

afterAll(async () => {
  await engine.close();
  rmSync(base, { recursive: true, force: true });
});

async function decisionOf(command: string): Promise<string | undefined> {
  return (await engine.decideShell(command, repo))?.decision;
}

describe('git staging and a gitignored .env', () => {
  it('stages the tree without the ignored, untracked .env', async () => {
    for (const command of ['git add .', 'git add -A', 'git add src .', 'git stash -u', 'git commit -am wip']) expect(await decisionOf(command), command).not.toBe('deny');
  });

  it('is a read of .env when git is told to take ignored files, or names it', async () => {
    for (const command of ['git add -f .', 'git add --force -A', 'git stash -a', 'git add .env']) expect(await decisionOf(command), command).toBe('deny');
  });

  it('is a read of .env once .env is tracked, ignore rule or not', async () => {
    git('add', '-f', '.env');
    git('commit', '-q', '-m', 'oops');
    for (const command of ['git add .', 'git commit -am wip', 'git stash']) expect(await decisionOf(command), command).toBe('deny');
    git('rm', '-q', '--cached', '.env');
    git('commit', '-q', '-m', 'untrack');
    expect(await decisionOf('git add .')).not.toBe('deny');
  });

  it('is a read of .env when a negation could take the ignore rule back', async () => {
    writeFileSync(join(repo, '.gitignore'), '.env\n!.env*\n');
    try {
      expect(await decisionOf('git add .')).toBe('deny');
    } finally {
      writeFileSync(join(repo, '.gitignore'), 'node_modules/\n.env\n');
    }
  });
});
