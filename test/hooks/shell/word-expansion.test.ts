import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAnsiC } from '../../../src/hooks/shell/ansi-c-string.js';
import { BraceLimitExceeded, expandBraces } from '../../../src/hooks/shell/brace-expansion.js';
import { expandGlob } from '../../../src/hooks/shell/glob-expansion.js';
import { loadShellAnalyzer, type ShellAnalyzer } from '../../../src/hooks/shell/index.js';
import { bare, literal } from '../../../src/hooks/shell/marked-text.js';
import { makeFixtureWorkspace, type FixtureWorkspace } from './corpus.js';

/**
 * Word expansion, observed through what matters: the argv a command gets. Each case is checked
 * against what bash itself prints for it.
 */

let analyzer: ShellAnalyzer;
let fixture: FixtureWorkspace;

beforeAll(async () => {
  analyzer = await loadShellAnalyzer();
  fixture = makeFixtureWorkspace();
});

afterAll(() => fixture.cleanup());

/** The words `echo` would get from `echo <words>` in the fixture root. */
function words(text: string, cwd = '.'): string[] {
  const result = analyzer.analyze(`echo ${text}`, { cwd: join(fixture.root, cwd), home: fixture.home });
  if (!result.ok) throw new Error(result.message);
  return result.commands[0]?.argv.slice(1) ?? [];
}

describe('quoting and escapes', () => {
  it.each([
    ['.e""nv', ['.env']],
    ["'.e'nv", ['.env']],
    ['".e"\'n\'v', ['.env']],
    ['\\.env', ['.env']],
    ['.\\e\\n\\v', ['.env']],
    ['a\\ b', ['a b']],
    ['"a b" c', ['a b', 'c']],
    ['"a\\"b"', ['a"b']],
    ['"a\\$b"', ['a$b']],
    ['"a\\b"', ['a\\b']],
    ["'a\\b'", ['a\\b']],
    ['$".env"', ['.env']],
    ["$'\\x2eenv'", ['.env']],
    ["$'\\056env'", ['.env']],
    ["$'\\u002eenv'", ['.env']],
    ["$'\\x2e'env", ['.env']],
  ])('%s', (text, expected) => {
    expect(words(text)).toEqual(expected);
  });

  it('decodes $\'…\' as bash does: bytes, UTF-8, and a NUL ending the string', () => {
    expect(decodeAnsiC('\\xc3\\xa9t\\xc3\\xa9')).toBe('été');
    expect(decodeAnsiC('a\\0b')).toBe('a');
    expect(decodeAnsiC('a\\x00b')).toBe('a');
    expect(decodeAnsiC('tab\\there')).toBe('tab\there');
    expect(decodeAnsiC('\\cA')).toBe('\u0001');
    expect(decodeAnsiC("it\\'s")).toBe("it's");
    expect(decodeAnsiC('\\q')).toBe('\\q');
    expect(decodeAnsiC('\\U0001F600')).toBe('😀');
  });

  it('joins a backslash-newline continuation', () => {
    expect(words('ab\\\ncd')).toEqual(['abcd']);
  });
});

describe('~ and $HOME', () => {
  it('expands ~, ~/x, $HOME and ${HOME}, quoted or not', () => {
    expect(words('~ ~/x $HOME/x "$HOME/x" "${HOME}/x"')).toEqual([fixture.home, `${fixture.home}/x`, `${fixture.home}/x`, `${fixture.home}/x`, `${fixture.home}/x`]);
  });

  it('does not expand a quoted ~ or one inside a word', () => {
    expect(words('"~" \'~/x\' a~/b \\~/x')).toEqual(['~', '~/x', 'a~/b', '~/x']);
  });

  it('expands ~+ to the working directory', () => {
    expect(words('~+/a')).toEqual([`${fixture.root}/a`]);
  });

  it('expands ~ after = in an assignment-like word, not in an option', () => {
    expect(words('if=~/x --opt=~/x PATH=~/a:~/b')).toEqual([`if=${fixture.home}/x`, '--opt=~/x', `PATH=${fixture.home}/a:${fixture.home}/b`]);
  });

  it('keeps ~user and other variables as written, and marks the command dynamic', () => {
    const result = analyzer.analyze('echo ~root/x $X "${Y:-a}"', { cwd: fixture.root, home: fixture.home });
    expect(result.ok && result.commands[0]).toEqual({ argv: ['echo', '~root/x', '$X', '"${Y:-a}"'], dynamic: true });
  });
});

describe('brace expansion', () => {
  it.each([
    ['{a,b}c', ['ac', 'bc']],
    ['x{,y}', ['x', 'xy']],
    ['a{b,c{d,e}}f', ['abf', 'acdf', 'acef']],
    ['{1..3}', ['1', '2', '3']],
    ['{3..1}', ['3', '2', '1']],
    ['{01..03}', ['01', '02', '03']],
    ['{1..10..4}', ['1', '5', '9']],
    ['{a..c}', ['a', 'b', 'c']],
    ['{-1..1}', ['-1', '0', '1']],
    ['{a}', ['{a}']],
    ['{}', ['{}']],
    ['{a,b', ['{a,b']],
    ["'{a,b}'", ['{a,b}']],
    ['\\{a,b}', ['{a,b}']],
    ['{a,b}{1,2}', ['a1', 'a2', 'b1', 'b2']],
  ])('%s', (text, expected) => {
    expect(words(text)).toEqual(expected);
  });

  it('keeps the static alternatives of a partly dynamic group', () => {
    const result = analyzer.analyze('cat {$X,.env}', { cwd: fixture.root, home: fixture.home });
    expect(result.ok && result.operations.map((operation) => operation.path ?? operation.dynamic?.text)).toEqual(['$X', join(fixture.root, '.env')]);
  });

  it('refuses to produce more than the limit, as one unsupported word', () => {
    expect(() => expandBraces(bare('{1..9}{1..9}{1..9}{1..9}'))).toThrow(BraceLimitExceeded);
    const result = analyzer.analyze('touch {1..9}{1..9}{1..9}{1..9}', { cwd: fixture.root, home: fixture.home });
    expect(result.ok && result.operations).toEqual([{ kind: 'write', dynamic: { text: '{1..9}{1..9}{1..9}{1..9}', reason: 'unsupported' }, via: 'touch argument' }]);
  });
});

describe('globs (against the fixture directory)', () => {
  it.each([
    ['.en*', ['.env', '.env.local']],
    ['*.md', ['README.md']],
    ['src/*.ts', ['src/app.ts', 'src/util.ts']],
    ['*/app.ts', ['src/app.ts']],
    ['src/[[:lower:]]*', ['src/app.ts', 'src/util.ts']],
    ['src/[!a]*', ['src/util.ts']],
    ['src/?pp.ts', ['src/app.ts']],
    ['.*', ['.claude', '.env', '.env.local', '.svc']],
    ['c*/', ['config/']],
  ])('%s', (text, expected) => {
    expect(words(text)).toEqual(expected);
  });

  it('does not let * or ? match a leading dot, and leaves an unmatched pattern as written', () => {
    expect(words('?env *.env [.]env nomatch*')).toEqual(['?env', '*.env', '[.]env', 'nomatch*']);
    expect(words('*').some((word) => word.startsWith('.'))).toBe(false);
  });

  it('does not glob quoted or escaped wildcards', () => {
    expect(words('"*.md" \'.en*\' \\*.md')).toEqual(['*.md', '.en*', '*.md']);
  });

  it('matches through ~ and in the working directory', () => {
    expect(words('~/.ss*/id_rsa*')).toEqual([`${fixture.home}/.ssh/id_rsa`, `${fixture.home}/.ssh/id_rsa.pub`]);
    expect(words('*.txt', 'sub/dir')).toEqual(['notes.txt']);
    expect(words('../../.en*', 'sub/dir')).toEqual(['../../.env', '../../.env.local']);
  });

  it('matches like a regular expression would, without its backtracking: a*a*…b against a long name is answered at once', () => {
    const listing = (names: string[]) => ({ realpath: () => undefined, kind: () => undefined, linkKind: () => undefined, physical: new Map(), list: () => names, listUpTo: () => names, assumeSymlink: () => undefined, readScript: () => undefined });
    const long = 'a'.repeat(250);
    expect(expandGlob(bare(`${'a*'.repeat(25)}b`), '/d', listing([long]))).toBeUndefined();
    expect(expandGlob(bare(`${'a*'.repeat(25)}a`), '/d', listing([long]))).toEqual({ matches: [long] });
    fc.assert(
      fc.property(fc.stringMatching(/^[ab]{0,3}[*?][ab*?]{0,6}$/), fc.uniqueArray(fc.stringMatching(/^[ab]{1,8}$/), { maxLength: 6 }), (pattern, names) => {
        const reference = new RegExp(`^${pattern.replaceAll('*', '.*').replaceAll('?', '.')}$`, 's');
        const expected = names.filter((name) => reference.test(name)).sort();
        const result = expandGlob(bare(pattern), '/d', listing(names));
        expect(result === undefined ? [] : 'matches' in result ? result.matches : ['too many']).toEqual(expected);
      }),
      { numRuns: 2_000 },
    );
  });

  it('reports a directory too large to list instead of pretending it saw every name', () => {
    const probe = { realpath: () => undefined, kind: () => undefined, linkKind: () => undefined, physical: new Map(), list: () => 'too_large' as const, listUpTo: () => undefined, assumeSymlink: () => undefined, readScript: () => undefined };
    expect(expandGlob(bare('*.env'), '/big', probe)).toEqual({ tooMany: true });
    expect(expandGlob(literal('*') + bare('*'), fixture.root, { realpath: () => undefined, kind: () => undefined, linkKind: () => undefined, physical: new Map(), list: () => ['*x', 'y'], listUpTo: () => ['*x', 'y'], assumeSymlink: () => undefined, readScript: () => undefined })).toEqual({ matches: ['*x'] });
  });
});
