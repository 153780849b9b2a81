import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requireWithCodeCache, writeCodeCache } from '../../src/cli/code-cache.js';

/**
 * A bundle is run from its bytes with the V8 code cache saved beside it; an ASCII bundle is
 * decoded the fast way, anything else as UTF-8, and both must come out as the text on disk.
 */
describe('requireWithCodeCache', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-code-cache-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['ASCII', "module.exports = { text: 'plain text', length: 'plain text'.length };"],
    ['UTF-8', "module.exports = { text: 'déjà vu → ✓ 🙂', length: 'déjà vu → ✓ 🙂'.length };"],
  ])('runs a bundle in %s as written, then with the cache it saves, and not with a cache for other bytes', (_kind, source) => {
    const file = join(dir, 'bundle.cjs');
    writeFileSync(file, source);
    const expected = { text: /'([^']*)'/.exec(source)?.[1], length: /'([^']*)'/.exec(source)?.[1]?.length };

    const first = requireWithCodeCache(file);
    expect(first.cache).toBe('absent');
    expect(first.exports).toEqual(expected);

    writeCodeCache(file, first);
    const second = requireWithCodeCache(file);
    expect(second.cache).toBe('accepted');
    expect(second.exports).toEqual(expected);

    // Same length, other bytes: the digest refuses the cache before V8 sees it.
    writeFileSync(file, readFileSync(file, 'utf8').replace('module.exports', 'module.EXPORTS'));
    expect(requireWithCodeCache(file).cache).toBe('absent');
  });
});
