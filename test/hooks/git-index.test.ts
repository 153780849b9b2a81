import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIndex, trackedFilesOf } from '../../src/hooks/git-index.js';
import { findProtectedTracked } from '../../src/hooks/protected-tracked.js';

/**
 * The index reader against indexes git itself wrote: every form it lists the same paths as
 * `git ls-files`, and any damage makes the index unknown rather than empty.
 */
let base: string;

const git = (repo: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo, stdio: 'pipe' }).toString();

/** Names that test the reader: nesting (version 4 shares prefixes), spaces, non-ASCII, long names (padding of every length). */
const LONG_DIRECTORY = Array.from({ length: 3 }, (_, index) => `${index}${'d'.repeat(200 + index)}`).join('/');
const FILES = ['README.md', 'src/app.ts', 'src/lib/a b.ts', 'src/lib/zeta.ts', 'docs/ünïcode.md', '.env', 'a', 'ab', 'abc', 'abcdefgh', `${LONG_DIRECTORY}/deep.txt`];

function repository(name: string, setup: (repo: string) => void = () => {}, init: string[] = []): string {
  const repo = join(base, name);
  mkdirSync(repo);
  git(repo, 'init', '-q', ...init);
  setup(repo);
  for (const file of FILES) {
    mkdirSync(join(repo, file, '..'), { recursive: true });
    writeFileSync(join(repo, file), `${file}\n`);
  }
  git(repo, 'add', '-A');
  return repo;
}

function listedByGit(repo: string): string[] {
  return git(repo, 'ls-files', '-z', '--sparse').split('\0').filter((path) => path !== '').sort();
}

function listed(repo: string): string[] {
  const tracked = trackedFilesOf(repo);
  if (!tracked.known) throw new Error(tracked.why);
  return tracked.entries.map((entry) => entry.path).sort();
}

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'svc-git-index-')));
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

describe('trackedFilesOf', () => {
  it('lists what git ls-files lists, in index versions 2, 3 and 4', () => {
    for (const version of [2, 3, 4]) {
      const repo = repository(`v${version}`, (at) => git(at, 'config', 'index.version', String(version)));
      if (version === 3) git(repo, 'update-index', '--skip-worktree', 'README.md'); // an entry with extended flags
      const bytes = readFileSync(join(repo, '.git/index'));
      expect(bytes.readUInt32BE(4), `the index git wrote is version ${version}`).toBe(version);
      expect(listed(repo)).toEqual(listedByGit(repo));
      expect(listed(repo)).toContain(`${LONG_DIRECTORY}/deep.txt`);
    }
  });

  it('reads a SHA-256 repository, a split index and a sparse index', () => {
    const sha256 = repository('sha256', () => {}, ['--object-format=sha256']);
    expect(listed(sha256)).toEqual(listedByGit(sha256));

    const split = repository('split');
    git(split, 'commit', '-q', '-m', 'first');
    git(split, 'update-index', '--split-index');
    writeFileSync(join(split, 'new.txt'), 'new\n');
    git(split, 'add', 'new.txt');
    expect(readFileSync(join(split, '.git/index')).includes('link'), 'the index is split').toBe(true);
    expect(listed(split)).toEqual(expect.arrayContaining(listedByGit(split)));

    const sparse = repository('sparse');
    git(sparse, 'commit', '-q', '-m', 'first');
    git(sparse, 'sparse-checkout', 'set', '--cone', '--sparse-index', 'src');
    expect(listed(sparse)).toEqual(listedByGit(sparse));
    expect(listed(sparse)).toContain('docs/');
  });

  it('has nothing tracked in a repository with no index yet, and knows nothing outside one', () => {
    const empty = join(base, 'empty');
    mkdirSync(empty);
    git(empty, 'init', '-q');
    expect(trackedFilesOf(empty)).toEqual({ known: true, entries: [], writtenAtNs: 0n });
    expect(trackedFilesOf(join(base, 'nowhere')).known).toBe(false);
  });

  it('refuses an index with any byte of its entries changed or cut short', () => {
    const repo = repository('damaged');
    const bytes = readFileSync(join(repo, '.git/index'));
    expect(parseIndex(bytes)).toBeDefined();
    for (const cut of [12, 60, Math.floor(bytes.length / 2), bytes.length - 1]) expect(parseIndex(bytes.subarray(0, cut)), `cut at ${cut}`).toBeUndefined();
    const longer = Buffer.from(bytes);
    longer.writeUInt32BE(longer.readUInt32BE(8) + 1, 8); // one entry more than there is
    expect(parseIndex(longer)).toBeUndefined();
    // A name's length that disagrees with its flags: the first entry's flags follow 40 bytes of stat data and a 20-byte hash.
    const renamed = Buffer.from(bytes);
    renamed.writeUInt16BE(renamed.readUInt16BE(12 + 60) + 1, 12 + 60);
    expect(parseIndex(renamed)).toBeUndefined();
  });
});

describe('findProtectedTracked', () => {
  const protects = (path: string) => (/(?:^|\/)(?:\.env|id_rsa)$/.test(path) ? 'secret' : undefined);

  it('finds the protected files among the tracked ones, by their path in the working tree', () => {
    const repo = repository('protected');
    expect(findProtectedTracked(repo, protects, false)).toEqual({ found: [{ path: join(repo, '.env') }], complete: true });
  });

  it('is incomplete for an index path that climbs out of the working tree, which git itself never writes', () => {
    const repo = repository('climbing');
    mkdirSync(join(repo, 'xx'));
    writeFileSync(join(repo, 'xx/id_rsa'), 'x\n');
    git(repo, 'add', 'xx/id_rsa');
    const index = join(repo, '.git/index');
    const bytes = readFileSync(index);
    const at = bytes.indexOf('xx/id_rsa\0');
    bytes.write('../id_rsa', at, 'latin1'); // the same length: only the name changes
    writeFileSync(index, bytes);
    expect(trackedFilesOf(repo)).toMatchObject({ known: true, entries: expect.arrayContaining([expect.objectContaining({ path: '../id_rsa' })]) });
    expect(findProtectedTracked(repo, protects, false).complete).toBe(false);
  });
});
