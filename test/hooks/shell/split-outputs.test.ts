import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadShellAnalyzer, type ShellAnalyzer } from '../../../src/hooks/shell/index.js';
import { listedNameTest } from '../../../src/hooks/shell/listed-names.js';

/**
 * split and csplit write every possible output name that exists (commands/split-outputs.ts). The
 * names are looked up with one listing of the directory when it holds no more entries than there
 * are names (command-invocation.ts `existing`), and one by one otherwise: both must find the same
 * files, symlinks followed, and a listing must never rule out a name a case-insensitive or
 * normalizing filesystem could find (listed-names.ts).
 */

let analyzer: ShellAnalyzer;
let dirs: string[] = [];

beforeAll(async () => {
  analyzer = await loadShellAnalyzer();
});

afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-split-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'out'));
  writeFileSync(join(dir, 'data.csv'), 'a\n');
  writeFileSync(join(dir, '.env'), 'KEY=1\n');
  return dir;
}

/** The paths split is reported to write, and where they really lead. */
function writes(command: string, cwd: string): string[] {
  const result = analyzer.analyze(command, { cwd, home: cwd });
  if (!result.ok) throw new Error(result.message);
  return result.operations.filter((operation) => operation.kind === 'write').map((operation) => `${operation.path ?? operation.dynamic?.text}${operation.realPath === undefined ? '' : ` -> ${operation.realPath}`}`);
}

describe('split outputs that exist', () => {
  it('are found, through symlinks, whether the directory is listed or each name looked up', () => {
    for (const filler of [0, 700]) {
      const dir = workspace();
      const out = join(dir, 'out');
      writeFileSync(join(out, 'xaa'), '');
      writeFileSync(join(out, 'xzz'), '');
      symlinkSync(join(dir, '.env'), join(out, 'xab'));
      symlinkSync(join(dir, 'nowhere'), join(out, 'xac'));
      writeFileSync(join(out, 'XAD'), '');
      mkdirSync(join(out, 'xae'));
      // More entries than split's 676 names: the names are looked up one by one instead.
      for (let index = 0; index < filler; index += 1) writeFileSync(join(out, `f${index}`), '');
      expect(writes('split -l 1 data.csv out/x', dir), `${filler} other entries`).toEqual([`${out}/xaa`, `${out}/xab -> ${dir}/.env`, `${out}/xae`, `${out}/xzz`, `${out}/x*`]);
    }
  });

  it('are looked up one by one when a listed name is not ASCII', () => {
    const dir = workspace();
    writeFileSync(join(dir, 'out', 'xaa'), '');
    writeFileSync(join(dir, 'out', 'caf\u00e9'), '');
    expect(writes('split -l 1 data.csv out/x', dir)).toEqual([`${dir}/out/xaa`, `${dir}/out/x*`]);
  });

  it('are none in a directory that is not there (missing, a file, a dangling symlink), until the line makes it a symlink', () => {
    const dir = workspace();
    writeFileSync(join(dir, 'file'), '');
    symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling'));
    for (const prefix of ['missing/x', 'missing/deeper/x', 'file/x', 'dangling/x']) expect(writes(`split -l 1 data.csv ${prefix}`, dir), prefix).toEqual([`${dir}/${prefix}*`]);
    writeFileSync(join(dir, 'out', 'xaa'), '');
    expect(writes('ln -s out made; split -l 1 data.csv made/x', dir)).toContain(`${dir}/made/xaa -> ${dir}/out/xaa`);
  });

  it('follow a symlink the command line creates before the split', () => {
    const dir = workspace();
    expect(writes('ln -s ../.env out/xaa; split -l 1 data.csv out/x', dir)).toContain(`${dir}/out/xaa -> ${dir}/.env`);
  });
});

describe('a listing', () => {
  it('never rules out a name that a case-insensitive or normalizing filesystem could find', () => {
    // Letters that fold onto ASCII (the Kelvin sign, the long s, ß), composed and decomposed é, and vfat's `~`.
    const character = fc.constantFrom('a', 'A', 'k', 'K', '\u212a', 's', 'S', '\u017f', '\u00df', 'e', '\u00e9', 'e\u0301', '~', '1', '.');
    const name = fc.array(character, { minLength: 1, maxLength: 4 }).map((characters) => characters.join(''));
    // The ways filesystems compare names: exactly, ignoring case (ASCII or Unicode), ignoring normalization, both.
    const folds = [(text: string) => text, (text: string) => text.toLowerCase(), (text: string) => text.normalize('NFD'), (text: string) => text.normalize('NFKD').toUpperCase().toLowerCase(), (text: string) => text.toUpperCase().toLowerCase().normalize('NFC')];
    fc.assert(
      fc.property(fc.array(name, { maxLength: 6 }), name, (listing, asked) => {
        const sameFile = listing.some((listed) => folds.some((fold) => fold(listed) === fold(asked)));
        if (sameFile) expect(listedNameTest(listing)(asked)).toBe('ask');
      }),
      { numRuns: 5_000 },
    );
  });

  it('rules out an ASCII name that no listed name equals ignoring ASCII case', () => {
    expect(listedNameTest(['xaa', 'README.md'])('xab')).toBe('absent');
    expect(listedNameTest(['xaa', 'README.md'])('XAA')).toBe('ask');
    expect(listedNameTest(['xaa'])('xa~1')).toBe('ask');
    expect(listedNameTest(['\u212aaa'])('xab')).toBe('ask');
  });
});
