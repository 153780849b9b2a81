import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBashParser, loadBashGrammar } from '../../../src/hooks/shell/bash-parser.js';
import { plainCommandTree } from '../../../src/hooks/shell/plain-command-tree.js';
import type { ShellContext } from '../../../src/hooks/shell/shell-analysis.js';
import { analyzeWithoutGrammar, createShellAnalyzer, type ShellAnalyzer } from '../../../src/hooks/shell/shell-analyzer.js';
import { loadCorpus, makeFixtureWorkspace, type FixtureWorkspace } from './corpus.js';

/**
 * A hook process analyzes a plain command line without loading the bash grammar
 * (analyzeWithoutGrammar). Whenever it answers, the answer must be the analyzer's own; when the
 * line or a script it runs needs the grammar, it must not answer at all.
 */

let fixture: FixtureWorkspace;
let analyzer: ShellAnalyzer;

beforeAll(async () => {
  fixture = makeFixtureWorkspace();
  analyzer = createShellAnalyzer(createBashParser(await loadBashGrammar(), { reuseParses: false }));
});

afterAll(() => fixture.cleanup());

function contextIn(cwd: string, mayReadScript: (path: string) => boolean = () => true): ShellContext {
  return { cwd, home: fixture.home, mayReadScript };
}

describe('analyzeWithoutGrammar', () => {
  it('gives the analyzer’s analysis for every corpus line it answers, and answers the plain ones that run no other script', () => {
    let answered = 0;
    for (const entry of loadCorpus()) {
      const context = contextIn(join(fixture.root, entry.cwd ?? '.'));
      const without = analyzeWithoutGrammar(entry.command, context);
      if (plainCommandTree(entry.command) === undefined) {
        expect(without, entry.command).toBeUndefined();
        continue;
      }
      if (without === undefined) continue;
      answered += 1;
      expect(without, entry.command).toEqual(analyzer.analyze(entry.command, context));
    }
    // About a third of the corpus is plain lines; most of them run no script of another kind.
    expect(answered).toBeGreaterThan(250);
  });

  it('does not answer for a plain line that runs a script only the grammar can read, and answers once the script is plain', () => {
    const dir = join(fixture.root, 'without-grammar');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'build.sh'), 'cat ../.env | head -n 1\n');
    // Without a final newline: a line break is outside the plain language.
    writeFileSync(join(dir, 'plain.sh'), 'cat ../.env');
    const context = contextIn(dir);
    expect(analyzeWithoutGrammar('bash build.sh', context)).toBeUndefined();
    const plain = analyzeWithoutGrammar('bash plain.sh', context);
    expect(plain).toEqual(analyzer.analyze('bash plain.sh', context));
    expect(plain?.ok && plain.operations.some((operation) => operation.kind === 'read' && 'path' in operation && operation.path === join(fixture.root, '.env'))).toBe(true);
  });

  it('answers a plain line whose script the caller may not read, as the analyzer does', () => {
    const dir = join(fixture.root, 'without-grammar');
    const context = contextIn(dir, () => false);
    const without = analyzeWithoutGrammar('bash build.sh', context);
    expect(without).toBeDefined();
    expect(without).toEqual(analyzer.analyze('bash build.sh', context));
  });
});
