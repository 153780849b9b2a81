import { execFileSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFilesystemProbe, type FilesystemProbe } from '../../../src/hooks/shell/filesystem-probe.js';
import { makeFixtureWorkspace, type FixtureWorkspace } from './corpus.js';

/**
 * What a probe answers without a system call of its own (a directory listing telling each
 * entry's type, a missing directory ruling out everything under it) must be exactly what a
 * fresh probe's lstat or stat of the path says.
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

function fresh(ask: (probe: FilesystemProbe) => unknown): unknown {
  return ask(createFilesystemProbe());
}

describe('filesystem probe shortcuts', () => {
  it('answer kind and linkKind as a fresh lstat or stat of each path does, whatever was asked before', () => {
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
            expect(probe.linkKind(path), `linkKind ${path}`).toBe(fresh((plain) => plain.linkKind(path)));
            expect(probe.kind(path), `kind ${path}`).toBe(fresh((plain) => plain.kind(path)));
          }
        }
      }
    }
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
