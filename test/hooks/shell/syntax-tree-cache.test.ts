import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBashParser, loadBashGrammar, type BashGrammar } from '../../../src/hooks/shell/bash-parser.js';
import { createShellAnalyzer } from '../../../src/hooks/shell/shell-analyzer.js';
import { SyntaxTreeCache } from '../../../src/hooks/shell/syntax-tree-cache.js';
import type { SyntaxNode } from '../../../src/hooks/shell/syntax-tree.js';
import { loadCorpus, makeFixtureWorkspace, type FixtureWorkspace } from './corpus.js';

/**
 * A script parsed before is not parsed again (syntax-tree-cache.ts): what an analysis finds must
 * not depend on whether its scripts were seen before, and no analysis may change a kept tree.
 */

let grammar: BashGrammar;
let fixture: FixtureWorkspace;

beforeAll(async () => {
  grammar = await loadBashGrammar();
  fixture = makeFixtureWorkspace();
});

afterAll(() => fixture.cleanup());

function node(children: SyntaxNode[] = []): SyntaxNode {
  return { type: 'word', named: true, field: undefined, start: 0, end: 1, children };
}

describe('syntax tree reuse', () => {
  it('finds the same operations in every corpus command, seen before or not, in any order', () => {
    const reusing = createShellAnalyzer(createBashParser(grammar));
    const afresh = createShellAnalyzer(createBashParser(grammar, { reuseParses: false }));
    const corpus = loadCorpus();
    for (const entry of [...corpus, ...[...corpus].reverse()]) {
      const context = { cwd: join(fixture.root, entry.cwd ?? '.'), home: fixture.home, mayReadScript: () => true };
      expect(reusing.analyze(entry.command, context), entry.command).toEqual(afresh.analyze(entry.command, context));
    }
  });

  it('charges a reused tree to the node budget as parsing it did', () => {
    const parser = createBashParser(grammar);
    const first = parser.parse('cat a b c | wc -l', 1_000);
    expect(first.ok).toBe(true);
    const nodes = first.ok ? first.nodes : 0;
    expect(parser.parse('cat a b c | wc -l', 1_000)).toEqual(first);
    expect(parser.parse('cat a b c | wc -l', nodes - 1)).toEqual({ ok: false, message: 'the command is too large to analyze', limit: true });
    expect(createBashParser(grammar, { reuseParses: false }).parse('cat a b c | wc -l', nodes - 1)).toEqual({ ok: false, message: 'the command is too large to analyze', limit: true });
  });

  it('refuses a script seen before with a syntax error as parsing it again would, under any node budget', () => {
    const reusing = createBashParser(grammar);
    const afresh = createBashParser(grammar, { reuseParses: false });
    for (const source of ['cat "unterminated', '( cat .env', 'cat <<EOF\nno end', 'if then', 'echo $(( 1 +', 'cat a b c | | wc -l']) {
      const first = reusing.parse(source, 1_000);
      expect(first.ok, source).toBe(false);
      for (const budget of [1_000, 40, 12, 8, 5, 3, 1, 0]) expect(reusing.parse(source, budget), `${source} (${budget} nodes)`).toEqual(afresh.parse(source, budget));
    }
  });

  it('keeps trees frozen, so no analysis changes what a later one reads', () => {
    const parser = createBashParser(grammar);
    const parsed = parser.parse('cat .env > out', 1_000);
    if (!parsed.ok) throw new Error(parsed.message);
    const child = parsed.root.children[0] as SyntaxNode;
    expect(() => {
      child.type = 'comment';
    }).toThrow(TypeError);
    expect(() => parsed.root.children.push(node())).toThrow(TypeError);
  });

  it('holds no more nodes or characters than its bounds, dropping the least recently used first', () => {
    const cache = new SyntaxTreeCache({ nodes: 3, characters: 100 });
    const tree = (): { root: SyntaxNode; nodes: number; descendants: number } => ({ root: node(), nodes: 1, descendants: 1 });
    cache.add('a', tree());
    cache.add('b', tree());
    cache.add('c', tree());
    expect(cache.get('a')).toBeDefined();
    cache.add('d', tree());
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    cache.add('x'.repeat(101), tree());
    expect(cache.get('x'.repeat(101))).toBeUndefined();
    cache.add('y'.repeat(99), tree());
    // 99 characters more: c and d (used longest ago) make room; a was used since.
    expect(cache.get('y'.repeat(99))).toBeDefined();
    expect(cache.get('c')).toBeUndefined();
    expect(cache.get('d')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
  });
});
