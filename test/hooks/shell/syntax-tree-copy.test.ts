import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Parser, type Tree } from 'web-tree-sitter';
import { createBashParser, loadBashGrammar, type BashGrammar } from '../../../src/hooks/shell/bash-parser.js';
import { copySyntaxTree, type CopyResult, type SyntaxNode } from '../../../src/hooks/shell/syntax-tree.js';
import { loadCorpus } from './corpus.js';

/**
 * copySyntaxTree skips questions whose answers it knows (the children of a token, the end of a
 * literal token): its copy must be the one a walk asking everything makes. The walk the parser
 * uses calls the WebAssembly runtime's cursor functions directly (runtime-cursor.ts): it must
 * copy every tree exactly as web-tree-sitter's TreeCursor does, limits and refusals included.
 */

let grammar: BashGrammar;
let parser: Parser;

beforeAll(async () => {
  grammar = await loadBashGrammar();
  parser = new Parser();
  parser.setLanguage(grammar.language);
});

afterAll(() => parser.delete());

/** The tree as a cursor walk reading every property of every node sees it. */
function askingEverything(tree: Tree): SyntaxNode {
  const withErrors = tree.rootNode.hasError;
  const cursor = tree.walk();
  const visit = (): SyntaxNode => {
    const typeId = cursor.nodeTypeId;
    const named = grammar.tables.named[typeId] ?? true;
    const type = withErrors && cursor.nodeIsMissing ? 'ERROR' : (grammar.tables.types[typeId] ?? 'ERROR');
    const start = cursor.startIndex;
    // The copy takes a literal token's end from its text (a MISSING one is zero-width).
    const end = named || withErrors ? cursor.endIndex : start + type.length;
    const node: SyntaxNode = { type, named, field: grammar.tables.fields[cursor.currentFieldId], start, end, children: [] };
    if (cursor.gotoFirstChild()) {
      do node.children.push(visit());
      while (cursor.gotoNextSibling());
      cursor.gotoParent();
    }
    return node;
  };
  try {
    return visit();
  } finally {
    cursor.delete();
  }
}

function copyOf(source: string): { copy: SyntaxNode; expected: SyntaxNode; hasErrors: boolean } {
  const tree = parser.parse(source);
  if (!tree) throw new Error('no tree');
  try {
    const copied = copySyntaxTree(tree.rootNode, grammar.tables, 60_000, 400, grammar.cursorRuntime());
    if (!copied.ok) throw new Error(copied.reason);
    return { copy: copied.root, expected: askingEverything(tree), hasErrors: copied.hasErrors };
  } finally {
    tree.delete();
  }
}

function containsError(node: SyntaxNode): boolean {
  return node.type === 'ERROR' || node.children.some(containsError);
}

/** The copy through the runtime's functions and the copy through TreeCursor, with the same limits. */
function bothCopies(source: string, maxNodes: number, maxDepth: number): { direct: CopyResult; public: CopyResult } {
  const tree = parser.parse(source);
  if (!tree) throw new Error('no tree');
  try {
    return { direct: copySyntaxTree(tree.rootNode, grammar.tables, maxNodes, maxDepth, grammar.cursorRuntime()), public: copySyntaxTree(tree.rootNode, grammar.tables, maxNodes, maxDepth) };
  } finally {
    tree.delete();
  }
}

const TOKENS = [
  'cat', 'sh -c', 'eval', 'git show', 'HEAD:.env', '.env', '~/.ssh/id_rsa', '$HOME', '${HOME:-x}', '${a[$(id)]}', '$X', '"', "'", '$(', ')', '`', '``', '<(', '>(',
  '$((', '))', '{', '}', '{a,b}', '*', '[', ']', '[[', ']]', '|', '||', '&&', ';', ';;', '&', '\n', '>', '<>', '<', '2>&1', '<<<', '<<EOF\nx $y\nEOF\n', '\\',
  '#', '!', '=', 'x=', 'a[1]=', 'if', 'then', 'fi', 'for', 'in', 'do', 'done', 'case', 'esac', '(', '$\'\\x2e\'', 'é', '🙂', ' ', ' ',
];
const shellish = fc.oneof(
  fc.array(fc.constantFrom(...TOKENS), { maxLength: 30 }).map((tokens) => tokens.join(' ')),
  fc.array(fc.constantFrom(...TOKENS), { maxLength: 20 }).map((tokens) => tokens.join('')),
  fc.string({ unit: 'binary', maxLength: 120 }),
);

describe('copySyntaxTree', () => {
  it('has the runtime\'s cursor functions to call directly', () => {
    expect(grammar.cursorRuntime()).toBeDefined();
  });

  it('is probed for them only once a parser has copied 16 trees, which a hook process never does', () => {
    let probes = 0;
    const counted = createBashParser({ ...grammar, cursorRuntime: () => ((probes += 1), grammar.cursorRuntime()) }, { reuseParses: false });
    const plain = createBashParser(grammar, { reuseParses: false });
    for (let index = 0; index < 20; index += 1) {
      const source = `cat "f${index}" | wc -l > out`;
      expect(counted.parse(source, 1_000), source).toEqual(plain.parse(source, 1_000));
      expect(probes, source).toBe(index < 16 ? 0 : index - 15);
    }
  });

  it('copies every corpus command through the runtime\'s functions as through TreeCursor, at every node and depth limit', () => {
    const sources = [...loadCorpus().map((entry) => entry.command), 'cat ``.env', 'cat "x', 'if true; then', '$(', 'echo `'];
    for (const source of sources) {
      expect(bothCopies(source, 60_000, 400).direct, source).toEqual(bothCopies(source, 60_000, 400).public);
      for (const [maxNodes, maxDepth] of [[3, 400], [12, 400], [60_000, 3], [60_000, 6]] as const) {
        const { direct, public: expected } = bothCopies(source, maxNodes, maxDepth);
        expect(direct, `${source} (${maxNodes} nodes, depth ${maxDepth})`).toEqual(expected);
      }
    }
  });

  it('copies generated commands through the runtime\'s functions as through TreeCursor', () => {
    fc.assert(
      fc.property(shellish, fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1, max: 40 }), (source, maxNodes, maxDepth) => {
        const unlimited = bothCopies(source, 60_000, 400);
        expect(unlimited.direct).toEqual(unlimited.public);
        const limited = bothCopies(source, maxNodes, maxDepth);
        expect(limited.direct).toEqual(limited.public);
      }),
      { numRuns: 3_000 },
    );
  });

  it('copies every corpus command, and broken ones, as a walk asking everything sees them', () => {
    // Commands with an empty `` are refused by the copy (below), so they are not compared.
    const sources = [...loadCorpus().map((entry) => entry.command).filter((command) => !/`\s*`/.test(command)), 'cat "x', 'if true; then', 'cat <> f', 'cmd 2>&1 <<< text', '$(', 'a && ', 'echo `', "echo $'\\x2e"];
    for (const source of sources) {
      const { copy, expected, hasErrors } = copyOf(source);
      expect(copy, source).toEqual(expected);
      expect(hasErrors, source).toBe(containsError(expected));
    }
  });

  it('refuses a tree holding an empty command substitution, which the grammar misreads as glue between words', () => {
    for (const source of ['cat ``.env', 'cat .e``nv', 'cat ` `.env']) {
      const tree = parser.parse(source);
      if (!tree) throw new Error('no tree');
      try {
        expect(copySyntaxTree(tree.rootNode, grammar.tables, 60_000, 400), source).toEqual({ ok: false, reason: 'empty_backquotes', offset: source.indexOf('`') });
      } finally {
        tree.delete();
      }
    }
  });

  it('relies on tree-sitter-bash naming no rule anonymously: an anonymous node is a token', () => {
    // An alias to an anonymous name of a rule with children would make an anonymous node with children.
    const require = createRequire(import.meta.url);
    const rules = JSON.parse(readFileSync(require.resolve('tree-sitter-bash/src/grammar.json'), 'utf8')) as { rules: unknown; externals: { name?: string }[] };
    const externals = new Set(rules.externals.map((external) => external.name));
    const anonymousAliases: { type: string; name?: string }[] = [];
    const visit = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(visit);
      else if (typeof value === 'object' && value !== null) {
        const rule = value as { type?: string; named?: boolean; content?: { type: string; name?: string } };
        if (rule.type === 'ALIAS' && rule.named === false && rule.content) anonymousAliases.push(rule.content);
        Object.values(value).forEach(visit);
      }
    };
    visit(rules.rules);
    for (const content of anonymousAliases) {
      const isToken = ['STRING', 'PATTERN', 'TOKEN', 'IMMEDIATE_TOKEN'].includes(content.type) || (content.type === 'SYMBOL' && externals.has(content.name));
      expect(isToken, JSON.stringify(content)).toBe(true);
    }
  });
});
