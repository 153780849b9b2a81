import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadShellAnalyzer, type ShellAnalysis, type ShellAnalyzer } from '../../../src/hooks/shell/index.js';

/**
 * Property: analyze never throws and always returns a well-formed analysis, on arbitrary strings
 * and on strings assembled from shell syntax (where the interesting paths are).
 */

let analyzer: ShellAnalyzer;
const context = { cwd: '/tmp/svc-shell-property', home: '/tmp/svc-shell-property-home' };

beforeAll(async () => {
  analyzer = await loadShellAnalyzer();
});

const TOKENS = [
  'cat', 'sh -c', 'bash -c', 'eval', 'sudo', 'env -i', 'xargs', 'find . -exec', '{}', '\\;', 'git show', 'HEAD:.env', 'tar czf', 'cp', 'mv', 'ln -s', 'python -c',
  '.env', '~/.ssh/id_rsa', '$HOME', '${HOME}', '$X', '"', "'", '$(', ')', '`', '<(', '>(', '$((', '))', '{', '}', '{a,b}', '{1..3}', '*', '?', '[', ']', '.en*',
  '|', '||', '&&', ';', '&', '\n', '>', '>>', '<', '2>&1', '&>', '<<<', '<<EOF\nx\nEOF\n', "<<'E'\ncat .env\nE\n", '\\', '#', '!', '=', 'x=', 'HOME=/x', 'cd', '..',
  'if', 'then', 'fi', 'for', 'in', 'do', 'done', 'case', 'esac', 'while', 'function', '(', '$\'\\x2e\'', '$"x"', ' ', ' ', ' ',
];

const shellish = fc.array(fc.constantFrom(...TOKENS), { maxLength: 24 }).map((tokens) => tokens.join(' '));
const glued = fc.array(fc.constantFrom(...TOKENS), { maxLength: 16 }).map((tokens) => tokens.join(''));

function wellFormed(result: ShellAnalysis): void {
  if (!result.ok) {
    expect(result.code).toBe('shell_unparsable');
    expect(typeof result.message).toBe('string');
    return;
  }
  for (const operation of result.operations) {
    expect(['read', 'write', 'delete', 'execute']).toContain(operation.kind);
    expect(operation.path !== undefined || operation.dynamic !== undefined).toBe(true);
    if (operation.path !== undefined) expect(operation.path.startsWith('/')).toBe(true);
    expect(typeof operation.via).toBe('string');
  }
  for (const command of result.commands) expect(command.argv.every((word) => typeof word === 'string')).toBe(true);
}

describe('analyze never throws', () => {
  it('on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (command) => {
        wellFormed(analyzer.analyze(command, context));
      }),
      { numRuns: 1_500 },
    );
  });

  it('on token soup built from shell syntax', () => {
    fc.assert(
      fc.property(fc.oneof(shellish, glued), (command) => {
        wellFormed(analyzer.analyze(command, context));
      }),
      { numRuns: 3_000 },
    );
  });

  it('on names an object lookup would find on Object.prototype, in every place a name is looked up', () => {
    const names = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];
    const places = ['NAME', 'NAME x', 'busybox NAME', 'npx NAME', 'tmux NAME', 'git NAME', 'npm run NAME', 'yarn NAME', 'python -m NAME', 'ls [[:NAME:]]', 'NAME=1 ls', 'env NAME=x ls'];
    for (const place of places) {
      for (const name of names) {
        const command = place.replaceAll('NAME', name);
        const result = analyzer.analyze(command, context);
        expect(result.ok, command).toBe(true);
        wellFormed(result);
      }
    }
  });
});
