import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findProtectedInside } from '../../../src/hooks/protected-inside.js';

/**
 * The walk for protected files under a recursive read, on real directories and symlinks: it
 * checks real paths (the name under a link is not the protected one), enters symlinked
 * directories the way `grep -R`, `cp -rL` or `tar h` do, and ends on a link cycle.
 */
let base: string;
let home: string;
let ws: string;
const protects = (path: string): string | undefined => (path === join(home, '.aws') || path.startsWith(`${join(home, '.aws')}/`) ? '~/.aws' : undefined);

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'svc-inside-')));
  home = join(base, 'home');
  ws = join(base, 'ws');
  mkdirSync(join(home, '.aws'), { recursive: true });
  writeFileSync(join(home, '.aws/credentials'), 'secret\n');
  mkdirSync(join(ws, 'sub/deeper'), { recursive: true });
  symlinkSync(home, join(ws, 'sub/hl'));
  symlinkSync('..', join(ws, 'sub/deeper/up'));
  symlinkSync(home, join(ws, 'h'));
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('findProtectedInside', () => {
  it('enters a symlinked directory inside the tree and reports the real path', () => {
    const inside = findProtectedInside(join(ws, 'sub'), protects);
    expect(inside.complete).toBe(true);
    expect(inside.found).toContainEqual({ path: join(ws, 'sub/hl/.aws'), realPath: join(home, '.aws') });
  });

  it('walks the real directory when the root itself is a symlink', () => {
    expect(findProtectedInside(join(ws, 'h'), protects).found).toEqual([{ path: join(ws, 'h/.aws'), realPath: join(home, '.aws') }]);
  });

  it('ends on a link to an ancestor, entering each real directory once', () => {
    const inside = findProtectedInside(ws, protects);
    expect(inside.complete).toBe(true);
    // ~/.aws is reached through two links (h and sub/hl); the home directory is entered once.
    expect(inside.found).toHaveLength(1);
  });
});
