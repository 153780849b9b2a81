import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHookEngine, type HookEngine } from './hook-engine.js';

/**
 * `git diff`, `git log -p` and `git show` name no path, yet print the changes of every tracked
 * file: with a `.env` tracked, they print the secret. The guard finds tracked protected files in
 * git's index; `git diff` of the working tree is a read of those changed since they were staged.
 * The repositories are real (git init, add, commit run here) and so is git's output, which shows
 * each denied command would have printed the secret.
 */
let base: string;
let engine: HookEngine;

const git = (repo: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo, stdio: 'pipe' }).toString();
/** What the command prints, whatever its exit status (`git diff` of two files that differ exits 1). */
const shell = (repo: string, command: string) => spawnSync('bash', ['-c', command], { cwd: repo, encoding: 'utf8', env: { ...process.env, GIT_PAGER: 'cat', GIT_CONFIG_NOSYSTEM: '1' } }).stdout;

function repository(name: string, options: { env: boolean; version?: number; objectFormat?: 'sha256' }): string {
  const repo = join(base, name);
  mkdirSync(join(repo, 'src'), { recursive: true });
  git(repo, 'init', '-q', ...(options.objectFormat === undefined ? [] : [`--object-format=${options.objectFormat}`]));
  if (options.version !== undefined) git(repo, 'config', 'index.version', String(options.version));
  writeFileSync(join(repo, 'src/app.ts'), 'export const answer = 42;\n');
  writeFileSync(join(repo, 'README.md'), '# demo\n');
  if (options.env) writeFileSync(join(repo, '.env'), 'API_KEY=sk-tracked-secret\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'first');
  return repo;
}

beforeAll(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'svc-git-tracked-')));
  engine = await startHookEngine({ workspace: base, home: join(base, 'home') });
});

afterAll(async () => {
  await engine.close();
  rmSync(base, { recursive: true, force: true });
});

async function decisionOf(command: string, cwd: string): Promise<string | undefined> {
  return (await engine.decideShell(command, cwd))?.decision;
}

const HISTORY_COMMANDS = ['git show', 'git show HEAD', 'git log -p', 'git log --patch -n 1', 'git log -U1', 'git diff "$(git hash-object -t tree /dev/null)" HEAD', 'git format-patch -1 --stdout', 'git whatchanged -p -1', 'git diff-tree -p --root HEAD', 'git reflog -p', 'git fast-export HEAD', 'git cat-file -p "$(git rev-parse HEAD:.env)"', 'git show "$(git ls-files -s .env | cut -d" " -f2)"'];

describe('a tracked .env', () => {
  it('is printed by patches of history that name no path, and each is a read of it', async () => {
    for (const version of [2, 3, 4]) {
      const repo = repository(`tracked-v${version}`, { env: true, version });
      for (const command of HISTORY_COMMANDS) {
        expect(shell(repo, command), command).toContain('sk-tracked-secret');
        expect(await decisionOf(command, repo), `${command} (index v${version})`).toBe('deny');
      }
      expect(await decisionOf('git show', join(repo, 'src')), 'from a subdirectory').toBe('deny');
      // The pickaxe prints commit names, not content, but answers whether the changes hold a string.
      expect(shell(repo, 'git log --oneline -S sk-tracked')).not.toBe('');
      expect(shell(repo, 'git log --oneline -S sk-guessed-wrong')).toBe('');
      expect(await decisionOf('git log --oneline -S sk-tracked', repo)).toBe('deny');
    }
  });

  it('is read by `git diff` of the working tree once it changed, and not before', async () => {
    const repo = repository('changed', { env: true });
    expect(shell(repo, 'git diff')).toBe('');
    expect(await decisionOf('git diff', repo)).not.toBe('deny');
    appendFileSync(join(repo, '.env'), 'OTHER=sk-second-secret\n');
    expect(shell(repo, 'git diff')).toContain('sk-second-secret');
    expect(shell(repo, 'yes n | git checkout -p')).toContain('sk-second-secret');
    for (const command of ['yes n | git checkout -p', 'yes n | git restore --patch', 'git reset -p']) expect(await decisionOf(command, repo), command).toBe('deny');
    expect(await decisionOf('git reset --hard', repo)).toBe('no_opinion');
    for (const command of ['git diff', 'git diff --stat -p', 'git difftool -y -x cat']) expect(await decisionOf(command, repo), command).toBe('deny');
    rmSync(join(repo, '.env'));
    expect(shell(repo, 'git diff')).toContain('sk-tracked-secret');
    expect(await decisionOf('git diff', repo), 'deleted, its lines are printed as removed').toBe('deny');
  });

  it('is copied out by a clone, a new worktree or a bundle, under names the protected paths may not cover', async () => {
    const repo = repository('copied', { env: true });
    for (const [command, copy] of [
      ['git clone -q . ../copied-clone', '../copied-clone/.env'],
      [`git clone -q file://${join(base, 'copied')} ../copied-url`, '../copied-url/.env'],
      ['git worktree add -q ../copied-tree', '../copied-tree/.env'],
    ] as const) {
      expect(await decisionOf(command, repo), command).toBe('deny');
      expect(shell(repo, `${command} && cat ${copy}`), command).toContain('sk-tracked-secret');
    }
    expect(await decisionOf('git bundle create ../copied.bundle --all', repo)).toBe('deny');
    // A push sends the commits, and the tracked .env in them, to wherever the remote is.
    git(repo, 'init', '-q', '--bare', '../copied-remote.git');
    expect(await decisionOf('git push -q ../copied-remote.git HEAD:refs/heads/main', repo)).toBe('deny');
    expect(shell(repo, 'git push -q ../copied-remote.git HEAD:refs/heads/main && git --git-dir=../copied-remote.git show main:.env')).toContain('sk-tracked-secret');
    // Another work tree without the file: the index's copy shows as deleted, every line of it printed.
    mkdirSync(join(base, 'copied-empty-tree'));
    expect(shell(repo, 'git --work-tree=../copied-empty-tree diff')).toContain('sk-tracked-secret');
    expect(await decisionOf('git --work-tree=../copied-empty-tree diff', repo)).toBe('deny');
    expect(shell(repo, 'GIT_WORK_TREE=../copied-empty-tree git diff')).toContain('sk-tracked-secret');
    expect(await decisionOf('GIT_WORK_TREE=../copied-empty-tree git diff', repo)).toBe('deny');
    expect(await decisionOf('git clone -q "$SOURCE" ../copied-variable', repo), 'a source known only at run time').toBe('step_up');
  });

  it("is read through git's object store, whose files hold it compressed", async () => {
    const repo = repository('objects', { env: true });
    const blob = git(repo, 'rev-parse', 'HEAD:.env').trim();
    const object = `.git/objects/${blob.slice(0, 2)}/${blob.slice(2)}`;
    // A zlib stream behind a gzip header: gzip inflates it (and then complains of the missing trailer).
    const inflate = `( printf '\\037\\213\\010\\000\\000\\000\\000\\000\\000\\003'; tail -c +3 ${object} ) | gzip -dc 2>/dev/null`;
    expect(shell(repo, inflate)).toContain('sk-tracked-secret');
    for (const command of [inflate, `cat ${object}`, 'cp -r .git /tmp/svc-objects-copy', 'tar czf - .git/objects | base64']) expect(await decisionOf(command, repo), command).toBe('deny');
    const clean = repository('objects-clean', { env: false });
    expect(await decisionOf('cp -r .git /tmp/svc-objects-copy', clean)).toBe('no_opinion');
  });

  it('is found in a SHA-256 repository and through a worktree', async () => {
    const repo = repository('sha256', { env: true, objectFormat: 'sha256' });
    expect(await decisionOf('git log -p', repo)).toBe('deny');
    git(repo, 'worktree', 'add', '-q', join(base, 'sha256-worktree'));
    expect(shell(join(base, 'sha256-worktree'), 'git show')).toContain('sk-tracked-secret');
    expect(await decisionOf('git show', join(base, 'sha256-worktree'))).toBe('deny');
  });

  it('is not read by commands that print names, counts, other paths or blobs', async () => {
    const repo = repository('names', { env: true });
    appendFileSync(join(repo, '.env'), 'OTHER=x\n');
    for (const command of ['git log', 'git log --stat', 'git log --oneline -5', 'git show --stat', 'git show -s', 'git diff --name-only', 'git diff --stat', 'git diff -- src', 'git log -p -- src', 'git show HEAD:README.md', 'git show HEAD -- README.md', 'git status']) {
      expect(shell(repo, command), command).not.toContain('sk-tracked-secret');
      expect(await decisionOf(command, repo), command).not.toBe('deny');
    }
  });
});

describe('a git MCP server', () => {
  it('returns patches of tracked files from its diff and show tools, as git in a shell does', async () => {
    const repo = repository('mcp', { env: true });
    const elsewhere = join(base, 'home');
    mkdirSync(elsewhere, { recursive: true });
    for (const [tool, input] of [
      ['mcp__git__git_show', { repo_path: repo, revision: 'HEAD' }],
      ['mcp__git__git_diff', { repo_path: repo, target: 'HEAD~0' }],
      ['mcp__git__git_diff_staged', { repo_path: repo }],
    ] as const) {
      expect((await engine.decideTool(tool, input, elsewhere))?.decision, tool).toBe('deny');
    }
    expect((await engine.decideTool('mcp__git__git_diff_unstaged', { repo_path: repo }, elsewhere))?.decision, 'nothing changed since staged').toBe('no_opinion');
    appendFileSync(join(repo, '.env'), 'OTHER=changed\n');
    expect((await engine.decideTool('mcp__git__git_diff_unstaged', { repo_path: repo }, elsewhere))?.decision).toBe('deny');
    for (const [tool, input] of [
      ['mcp__git__git_show', { repo_path: repo, revision: 'HEAD:README.md' }],
      ['mcp__git__git_log', { repo_path: repo, max_count: 5 }],
      ['mcp__git__git_status', { repo_path: repo }],
    ] as const) {
      expect((await engine.decideTool(tool, input, elsewhere))?.decision, tool).toBe('no_opinion');
    }
  });
});

describe('a repository that does not track .env', () => {
  it('shows its history with no opinion, even with an ignored .env on disk', async () => {
    const repo = repository('ignored', { env: false });
    writeFileSync(join(repo, '.gitignore'), '.env\n');
    writeFileSync(join(repo, '.env'), 'API_KEY=sk-untracked\n');
    for (const command of ['git diff', 'git show', 'git log -p', 'git diff HEAD', 'git format-patch -1 --stdout', 'git clone -q . ../ignored-clone']) {
      expect(shell(repo, command), command).not.toContain('sk-untracked');
      expect(await decisionOf(command, repo), command).toBe('no_opinion');
    }
  });

  it('shows its history with no opinion when it tracks only a .env template', async () => {
    const repo = repository('template', { env: false });
    writeFileSync(join(repo, '.env.example'), 'API_KEY=\n');
    git(repo, 'add', '.env.example');
    git(repo, 'commit', '-q', '-m', 'template');
    for (const command of ['git show', 'git log -p', 'cat .env.example', 'git push --dry-run . HEAD:refs/heads/copy']) expect(await decisionOf(command, repo), command).toBe('no_opinion');
  });

  it('treats an index it cannot read as possibly tracking anything', async () => {
    const repo = repository('unreadable', { env: false });
    writeFileSync(join(repo, '.git/index'), 'DIRC not an index');
    expect(await decisionOf('git log -p', repo)).not.toBe('no_opinion');
  });
});

describe('git diff of a path outside the working tree', () => {
  it('is a read of a path known only at run time', async () => {
    const repo = repository('outside', { env: false });
    mkdirSync(join(base, 'home/.ssh'), { recursive: true });
    writeFileSync(join(base, 'home/.ssh/id_rsa'), 'PRIVATE KEY\n');
    const command = `git diff "$(echo ${join(base, 'home/.ssh/id_rsa')})" /dev/null`;
    expect(shell(repo, command)).toContain('PRIVATE KEY');
    expect(await decisionOf(command, repo)).not.toBe('no_opinion');
    expect(await decisionOf('git diff "$(git merge-base HEAD HEAD)" HEAD', repo)).toBe('no_opinion');
  });
});
