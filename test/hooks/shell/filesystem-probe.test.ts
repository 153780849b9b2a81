import { execFileSync } from 'node:child_process';
import { lstatSync, statSync, symlinkSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFilesystemProbe } from '../../../src/hooks/shell/filesystem-probe.js';
import { makeFixtureWorkspace, type FixtureWorkspace } from './corpus.js';

/**
 * What a probe answers without a system call of its own (a directory listing telling each
 * entry's type, a missing directory ruling out everything under it, an lstat answering for a
 * stat) must be exactly what an lstat or a stat of the path says.
 */

let fixture: FixtureWorkspace;

beforeAll(() => {
  fixture = makeFixtureWorkspace();
  symlinkSync(join(fixture.root, 'no-such-target'), join(fixture.root, 'dangling'));
  execFileSync('mkfifo', [join(fixture.root, 'pipe')]);
});

afterAll(() => fixture.cleanup());

function samplePaths(): string[] {
  const root = fixture.root;
  const names = ['.env', 'README.md', 'config', 'link-to-env', 'link-to-config', 'link-to-ssh', 'dangling', 'pipe', 'missing', 'sub'];
  const paths = names.map((name) => `${root}/${name}`);
  // Under files, links, a FIFO, a dangling link and missing directories, and `..` after them.
  for (const name of names) paths.push(`${root}/${name}/x`, `${root}/${name}/app.json`, `${root}/${name}/x/y`, `${root}/${name}/..`, `${root}/${name}/../.env`, `${root}/${name}/`);
  paths.push(`${fixture.home}/.ssh/id_rsa`, `${root}/link-to-ssh/id_rsa`, '/', '/x-no-such-top-level', '/x-no-such-top-level/y');
  return paths;
}

/** The directories a glob would list before those paths are looked up. */
function listedDirectories(): string[] {
  return [fixture.root, join(fixture.root, 'config'), join(fixture.root, 'link-to-config'), join(fixture.root, 'link-to-ssh'), join(fixture.root, 'missing'), join(fixture.root, '.env'), fixture.home];
}

/** What lstat(2) says is at `path`, the reference for linkKind. */
function lstatKind(path: string): string | undefined {
  return typeOf(tryStat(() => lstatSync(path, { throwIfNoEntry: false })));
}

/** What stat(2) says is at `path`, the reference for kind. */
function statKind(path: string): string | undefined {
  return typeOf(tryStat(() => statSync(path, { throwIfNoEntry: false })));
}

function tryStat(stat: () => Stats | undefined): Stats | undefined {
  try {
    return stat();
  } catch {
    // ENOTDIR, ELOOP, EACCES: nothing the command could reach there.
    return undefined;
  }
}

function typeOf(stats: Stats | undefined): string | undefined {
  if (stats === undefined) return undefined;
  return stats.isSymbolicLink() ? 'symlink' : stats.isDirectory() ? 'directory' : stats.isFile() ? 'file' : 'other';
}

describe('filesystem probe shortcuts', () => {
  it('answer kind and linkKind as an lstat or a stat of each path does, whatever was asked before', () => {
    const paths = samplePaths();
    for (const order of [paths, [...paths].reverse()]) {
      for (const listFirst of [false, true]) {
        for (const parentsFirst of [false, true]) {
          const probe = createFilesystemProbe();
          if (listFirst) for (const directory of listedDirectories()) probe.list(directory);
          for (const path of order) {
            // Asking for the directory first is what lets the probe rule out what is under it.
            if (parentsFirst) {
              const parent = path.slice(0, path.lastIndexOf('/'));
              if (parent !== '') {
                probe.kind(parent);
                probe.linkKind(parent);
              }
            }
            expect(probe.linkKind(path), `linkKind ${path}`).toBe(lstatKind(path));
            expect(probe.kind(path), `kind ${path}`).toBe(statKind(path));
          }
        }
      }
    }
  });

  it('answer for any path, whatever was listed or asked before, as an lstat or a stat does', () => {
    // Components that exist, do not, lead through links, a FIFO, or are `.`, `..` and empty.
    const component = fc.constantFrom('.env', 'README.md', 'config', 'app.json', 'link-to-env', 'link-to-config', 'link-to-ssh', 'id_rsa', 'dangling', 'pipe', 'missing', 'sub', 'dir', '.', '..', '');
    const path = fc.tuple(fc.boolean(), fc.array(component, { minLength: 1, maxLength: 4 })).map(([inHome, components]) => `${inHome ? fixture.home : fixture.root}/${components.join('/')}`);
    const question = fc.tuple(fc.constantFrom('kind', 'linkKind', 'list'), path);
    fc.assert(
      fc.property(fc.array(question, { maxLength: 6 }), path, (before, asked) => {
        const probe = createFilesystemProbe();
        for (const [method, earlier] of before) probe[method](earlier);
        expect(probe.kind(asked), `kind ${asked}`).toBe(statKind(asked));
        expect(probe.linkKind(asked), `linkKind ${asked}`).toBe(lstatKind(asked));
      }),
      { numRuns: 2_000 },
    );
  });

  it('tells the types of listed entries without an lstat of each', () => {
    const probe = createFilesystemProbe();
    expect(probe.list(fixture.root)).toContain('link-to-env');
    expect(probe.linkKind(join(fixture.root, 'link-to-env'))).toBe('symlink');
    expect(probe.linkKind(join(fixture.root, 'config'))).toBe('directory');
    expect(probe.linkKind(join(fixture.root, 'pipe'))).toBe('other');
    expect(probe.kind(join(fixture.root, 'link-to-env'))).toBe('file');
  });

  it('takes no shortcut once a symlink is assumed', () => {
    const probe = createFilesystemProbe();
    const missing = join(fixture.root, 'missing');
    expect(probe.kind(missing)).toBeUndefined();
    // `ln -s config missing && cat missing/app.json`: the link the line creates leads somewhere real.
    probe.assumeSymlink(missing, join(fixture.root, 'config'));
    expect(probe.kind(join(missing, 'app.json'))).toBe('file');
  });
});
