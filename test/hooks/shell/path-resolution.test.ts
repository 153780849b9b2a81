import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFilesystemProbe } from '../../../src/hooks/shell/filesystem-probe.js';
import { resolveFilePath } from '../../../src/hooks/shell/index.js';
import { expandHomePrefix, isInertDevice, resolvePath } from '../../../src/hooks/shell/path-resolution.js';
import { makeFixtureWorkspace, type FixtureWorkspace } from './corpus.js';

let fixture: FixtureWorkspace;
let context: { cwd: string; home: string };

beforeAll(() => {
  fixture = makeFixtureWorkspace();
  context = { cwd: fixture.root, home: fixture.home };
});

afterAll(() => fixture.cleanup());

describe('resolveFilePath (paths from non-shell tools)', () => {
  it('resolves relative paths against the working directory', () => {
    expect(resolveFilePath('src/app.ts', context)).toEqual({ path: join(fixture.root, 'src/app.ts') });
    expect(resolveFilePath('./README.md', context)).toEqual({ path: join(fixture.root, 'README.md') });
  });

  it('keeps absolute paths and normalizes them', () => {
    expect(resolveFilePath(`${fixture.root}/src/../.env`, context)).toEqual({ path: join(fixture.root, '.env') });
    expect(resolveFilePath('/etc//hosts', { cwd: '/', home: '/nonexistent-home' }).path).toBe('/etc/hosts');
  });

  it('expands ~, ~/, $HOME and ${HOME}', () => {
    expect(resolveFilePath('~', context).path).toBe(fixture.home);
    expect(resolveFilePath('~/.ssh/id_rsa', context).path).toBe(join(fixture.home, '.ssh/id_rsa'));
    expect(resolveFilePath('$HOME/.aws/credentials', context).path).toBe(join(fixture.home, '.aws/credentials'));
    expect(resolveFilePath('${HOME}/.npmrc', context).path).toBe(join(fixture.home, '.npmrc'));
  });

  it('leaves ~user and a ~ inside a name as written', () => {
    expect(resolveFilePath('~root/x', context).path).toBe(join(fixture.root, '~root/x'));
    expect(resolveFilePath('a~/b', context).path).toBe(join(fixture.root, 'a~/b'));
    expect(expandHomePrefix('$HOMEX/a', '/h')).toBe('$HOMEX/a');
  });

  it('resolves .. lexically in path, as the command names it', () => {
    expect(resolveFilePath('sub/dir/../../.env', context).path).toBe(join(fixture.root, '.env'));
    expect(resolveFilePath('../../.env', { ...context, cwd: join(fixture.root, 'sub/dir') }).path).toBe(join(fixture.root, '.env'));
  });

  it('follows a symlink to a file into realPath', () => {
    expect(resolveFilePath('link-to-env', context)).toEqual({ path: join(fixture.root, 'link-to-env'), realPath: join(fixture.root, '.env') });
    expect(resolveFilePath('public/innocent.txt', context).realPath).toBe(join(fixture.root, '.env.local'));
  });

  it('follows a directory symlink on the way, even when the rest does not exist', () => {
    expect(resolveFilePath('link-to-config/app.json', context).realPath).toBe(join(fixture.root, 'config/app.json'));
    expect(resolveFilePath('link-to-ssh/id_rsa', context).realPath).toBe(join(fixture.home, '.ssh/id_rsa'));
    expect(resolveFilePath('link-to-config/missing/deeper.txt', context).realPath).toBe(join(fixture.root, 'config/missing/deeper.txt'));
  });

  it('resolves .. after a symlink physically in realPath, as the kernel does', () => {
    expect(resolveFilePath('link-to-ssh/../notes.txt', context)).toEqual({ path: join(fixture.root, 'notes.txt'), realPath: join(fixture.home, 'notes.txt') });
  });

  it.runIf(process.platform === 'linux')('sees through /proc/self/root, a symlink to /', () => {
    expect(resolveFilePath(`/proc/self/root${fixture.root}/link-to-env`, context).realPath).toBe(join(fixture.root, '.env'));
  });

  it('reports no realPath when no symlink is on the way', () => {
    expect(resolveFilePath('missing/file.txt', context)).toEqual({ path: join(fixture.root, 'missing/file.txt') });
  });
});

describe('resolvePath', () => {
  it('does not follow the last component when the command acts on the link itself', () => {
    const probe = createFilesystemProbe();
    expect(resolvePath('link-to-env', fixture.root, probe, false)).toEqual({ path: join(fixture.root, 'link-to-env') });
    expect(resolvePath('link-to-config/app.json', fixture.root, probe, false).realPath).toBe(join(fixture.root, 'config/app.json'));
    // A trailing slash names the directory the link leads to.
    expect(resolvePath('link-to-config/', fixture.root, probe, false).realPath).toBe(join(fixture.root, 'config'));
  });

  it('treats harmless devices as no file at all', () => {
    expect(isInertDevice('/dev/null')).toBe(true);
    expect(isInertDevice('/dev/fd/3')).toBe(true);
    expect(isInertDevice('/dev/sda')).toBe(false);
    expect(isInertDevice('/dev/tcp/example.com/80')).toBe(false);
    expect(isInertDevice('/tmp/dev/null')).toBe(false);
  });
});
