import { symlinkSync } from 'node:fs';
import { join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFilesystemProbe, type FilesystemProbe } from '../../../src/hooks/shell/filesystem-probe.js';
import { normalizeAbsolute, physicalPath, resolvePath } from '../../../src/hooks/shell/path-resolution.js';
import { makeFixtureWorkspace, type FixtureWorkspace } from './corpus.js';

/**
 * The shortcuts path resolution takes within one analysis (what a probe already worked out, the
 * working directory resolved with one realpath(3)) must give exactly what resolving every path on
 * its own would.
 */

let fixture: FixtureWorkspace;

beforeAll(() => {
  fixture = makeFixtureWorkspace();
  symlinkSync(join(fixture.root, 'no-such-target'), join(fixture.root, 'dangling'));
});

afterAll(() => fixture.cleanup());

/** Absolute, unnormalized paths through links, `..` after links, missing parts and dangling links. */
function samplePaths(): string[] {
  const root = fixture.root;
  return [
    `${root}/.env`,
    `${root}/link-to-env`,
    `${root}/link-to-config/app.json`,
    `${root}/link-to-config/../README.md`,
    `${root}/link-to-ssh/id_rsa`,
    `${root}/link-to-ssh/../notes.txt`,
    `${root}/link-to-ssh/../../project/.env`,
    `${root}/missing/../.env`,
    `${root}/missing/../link-to-env`,
    `${root}/missing/deeper/file`,
    `${root}/dangling`,
    `${root}/dangling/x`,
    `${root}/.env/x`,
    `${root}/.env/..`,
    `${root}//config/./app.json`,
    `${root}/config/`,
    `${root}/sub/home-link/.ssh/../.aws`,
    `${fixture.home}/.ssh/id_rsa`,
    '/',
    '/..',
  ];
}

function alone(path: string): string {
  return physicalPath(path, createFilesystemProbe());
}

describe('physicalPath', () => {
  it('follows a symlink after backing out of a directory that does not exist, whatever came before', () => {
    // The line may create the directory before the path is used (`mkdir missing; cat missing/../link-to-ssh/id_rsa`).
    expect(alone(`${fixture.root}/missing/../link-to-ssh/id_rsa`)).toBe(`${fixture.home}/.ssh/id_rsa`);
    const probe = createFilesystemProbe();
    physicalPath(`${fixture.root}/missing/x`, probe);
    expect(physicalPath(`${fixture.root}/missing/../link-to-ssh/id_rsa`, probe)).toBe(`${fixture.home}/.ssh/id_rsa`);
  });

  it('answers as the plain component walk does, whatever the probe already worked out', () => {
    const paths = samplePaths();
    for (const order of [paths, [...paths].reverse(), [...paths, ...paths]]) {
      const probe = createFilesystemProbe();
      const plainProbe = createFilesystemProbe();
      for (const path of order) expect(physicalPath(path, probe), path).toBe(plainPhysicalPath(path, plainProbe));
    }
  });

  it('follows links and resolves `..` after them physically', () => {
    expect(alone(`${fixture.root}/link-to-ssh/../notes.txt`)).toBe(join(fixture.home, 'notes.txt'));
    expect(alone(`${fixture.root}/link-to-config/missing/deeper.txt`)).toBe(join(fixture.root, 'config/missing/deeper.txt'));
    expect(alone(`${fixture.root}/dangling`)).toBe(join(fixture.root, 'dangling'));
  });
});

/**
 * Path resolution as it was before its shortcuts: the component walk from the root, checking the
 * probe's cache at every leading part. The oracle for the shortcuts (not for the walk itself).
 */
function plainPhysicalPath(raw: string, probe: FilesystemProbe): string {
  const known = probe.physical.get(raw);
  if (known !== undefined) return known;
  const parts = raw.split('/');
  let prefix = '';
  let real = '/';
  let exists = true;
  for (let index = 1; index < parts.length; index += 1) {
    const name = parts[index] as string;
    prefix += `/${name}`;
    const cached = probe.physical.get(prefix);
    if (cached !== undefined) {
      real = cached;
      continue;
    }
    if (name === '..') {
      real = posix.dirname(real);
      exists = true;
    } else if (name !== '' && name !== '.') {
      const candidate = real === '/' ? `/${name}` : `${real}/${name}`;
      const kind = exists ? probe.linkKind(candidate) : undefined;
      if (kind === undefined) exists = false;
      real = kind === 'symlink' ? (probe.realpath(candidate) ?? candidate) : candidate;
    }
    probe.physical.set(prefix, real);
  }
  return real;
}

function plainResolvePath(value: string, base: string, probe: FilesystemProbe, followFinal: boolean): { path: string; realPath?: string } {
  const raw = value.startsWith('/') ? value : `${base}/${value}`;
  const path = posix.resolve(raw);
  let real: string;
  if (followFinal || value.endsWith('/')) real = plainPhysicalPath(raw, probe);
  else {
    const slash = raw.lastIndexOf('/');
    const last = raw.slice(slash + 1);
    real = last === '..' || last === '.' || last === '' ? plainPhysicalPath(raw, probe) : posix.join(plainPhysicalPath(raw.slice(0, slash) || '/', probe), last);
  }
  return real === path ? { path } : { path, realPath: real };
}

describe('resolvePath against a working directory', () => {
  // Absolute ones too: they share the probe with the relative ones before and after them.
  const values = (): string[] => ['.env', 'link-to-env', 'app.json', '../README.md', '../link-to-ssh/id_rsa', 'missing/x', '..', '.', 'x/', `${'../'.repeat(8)}etc/hosts`, `${fixture.root}/sub/home-link/.aws/credentials`, `${fixture.home}/.ssh/id_rsa`];
  const bases = (): string[] => [fixture.root, join(fixture.root, 'link-to-config'), join(fixture.root, 'missing-dir'), join(fixture.root, 'link-to-ssh'), join(fixture.root, 'sub/home-link/.ssh'), '/'];

  it('answers as the plain component walk does, path after path', () => {
    for (const base of bases()) {
      for (const order of [values(), values().reverse()]) {
        const probe = createFilesystemProbe();
        const plainProbe = createFilesystemProbe();
        for (const value of order) {
          for (const followFinal of [true, false]) {
            expect(resolvePath(value, base, probe, followFinal), `${base} ${value} ${followFinal}`).toEqual(plainResolvePath(value, base, plainProbe, followFinal));
          }
        }
      }
    }
  });

  it('sees through a working directory that is a symlink', () => {
    const probe = createFilesystemProbe();
    expect(resolvePath('app.json', join(fixture.root, 'link-to-config'), probe, true)).toEqual({ path: join(fixture.root, 'link-to-config/app.json'), realPath: join(fixture.root, 'config/app.json') });
    expect(resolvePath('../notes.txt', join(fixture.root, 'link-to-ssh'), probe, true)).toEqual({ path: join(fixture.root, 'notes.txt'), realPath: join(fixture.home, 'notes.txt') });
  });

  it('takes no shortcut through a symlink the command line creates', () => {
    // `ln -sfn "$PWD/config" ~/.ssh`, then a path through another link to the home directory:
    // the kernel will arrive in config, while realpath(3) today would say ~/.ssh.
    const probe = createFilesystemProbe();
    probe.assumeSymlink(join(fixture.home, '.ssh'), join(fixture.root, 'config'));
    expect(resolvePath('app.json', join(fixture.root, 'sub/home-link/.ssh'), probe, true).realPath).toBe(join(fixture.root, 'config/app.json'));
  });
});

describe('normalizeAbsolute', () => {
  it('is posix.resolve for absolute paths', () => {
    const paths = ['/', '//', '/a', '/a/', '/a//b', '/a/./b', '/a/../b', '/a/.', '/a/..', '/.', '/..', '/a/.b', '/a/..b', '/a/...', '/a/b.', '/a/b./c', '/ a/ b '];
    for (const path of paths) expect(normalizeAbsolute(path), path).toBe(posix.resolve(path));
  });
});
