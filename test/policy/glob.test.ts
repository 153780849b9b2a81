import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGlob, compileGlobList } from '../../src/policy/glob.js';

/** The definition, written the slow and obvious way: `*` any run, `?` one code point, all else literal. */
function reference(glob: string, text: string): boolean {
  const source = [...glob].map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[\\^$.|?*+()[\]{}/]/g, '\\$&'))).join('');
  return new RegExp(`^${source}$`, 'su').test(text);
}

describe('globs', () => {
  it.each([
    ['chat.message.send', 'chat.message.send', true],
    ['chat.message.send', 'chat.message.sent', false],
    ['chat.*', 'chat.message.send', true],
    ['chat.*', 'chat.', true],
    ['chat.*', 'chatx', false],
    ['*.send', 'email.message.send', true],
    ['channel:*', 'channel:', true],
    ['*@acme.example', 'ana@acme.example', true],
    ['*@acme.example', 'ana@acme.example.evil.com', false],
    ['a*b', 'ab', true],
    ['a*b', 'a', false],
    ['chat.??.send', 'chat.ab.send', true],
    ['chat.??.send', 'chat.abc.send', false],
    ['*a*b*', 'xxaxxbxx', true],
    ['*a*b*', 'xxbxxaxx', false],
    ['a.b', 'axb', false],
    ['[abc]', '[abc]', true],
    ['[abc]', 'a', false],
    ['(x|y)+', '(x|y)+', true],
    ['?', '😀', true],
    ['??', '😀', false],
    ['*', '', true],
    ['**', 'anything', true],
    ['line*', 'line1\nline2', true],
  ])('%s against %j: %s', (glob, text, expected) => {
    expect(compileGlob(glob)(text)).toBe(expected);
  });

  it('a list matches when any glob does, plain names by set lookup', () => {
    expect(compileGlobList(['chat.message.send', 'email.message.send'])('email.message.send')).toBe(true);
    expect(compileGlobList(['chat.message.send', 'email.message.send'])('sql.query.run')).toBe(false);
    expect(compileGlobList(['sql.*', 'chat.message.send'])('sql.query.run')).toBe(true);
  });

  it('agrees with the regular-expression definition on arbitrary globs and texts', () => {
    const alphabet = fc.constantFrom('a', 'b', '.', ':', '*', '?', '😀', '\\', '[', ']');
    const glob = fc.array(alphabet, { maxLength: 8 }).map((chars) => chars.join(''));
    const text = fc.array(fc.constantFrom('a', 'b', '.', ':', '😀', '\\', '[', ']', '*', '?'), { maxLength: 12 }).map((chars) => chars.join(''));
    fc.assert(
      fc.property(glob, text, (pattern, value) => compileGlob(pattern)(value) === reference(pattern, value)),
      { numRuns: 5000 },
    );
  });

  it('stays fast on texts built to make a backtracking matcher stall', () => {
    const glob = '*a*a*a*a*a*a*a*b';
    const text = 'a'.repeat(16 * 1024);
    const started = performance.now();
    expect(compileGlob(glob)(text)).toBe(false);
    // Linear in the text for each star retry: well under a second even on a slow runner.
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
