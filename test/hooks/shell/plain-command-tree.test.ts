import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Parser } from 'web-tree-sitter';
import { createBashParser, loadBashGrammar, type BashGrammar } from '../../../src/hooks/shell/bash-parser.js';
import { plainCommandTree } from '../../../src/hooks/shell/plain-command-tree.js';
import { copySyntaxTree } from '../../../src/hooks/shell/syntax-tree.js';
import { loadCorpus } from './corpus.js';

/**
 * The parser builds the tree of a plain command line itself (plain-command-tree.ts): whenever
 * it does, the tree, its node count and the parser's answer at any node budget must be what
 * tree-sitter-bash and the copy give.
 */

let grammar: BashGrammar;
let parser: Parser;

beforeAll(async () => {
  grammar = await loadBashGrammar();
  parser = new Parser();
  parser.setLanguage(grammar.language);
});

afterAll(() => parser.delete());

/** Checks a line the fast path takes against tree-sitter-bash; false when the fast path leaves it to the parser. */
function holdsToParser(source: string): boolean {
  const plain = plainCommandTree(source);
  if (plain === undefined) return false;
  const tree = parser.parse(source);
  if (!tree) throw new Error('no tree');
  try {
    const copied = copySyntaxTree(tree.rootNode, grammar.tables, 60_000, 400);
    expect(copied, source).toEqual({ ok: true, root: plain.root, nodes: plain.nodes, hasErrors: false });
    if (copied.ok) expect(copied.root, source).toStrictEqual(plain.root);
    expect(tree.rootNode.hasError, source).toBe(false);
    expect(tree.rootNode.descendantCount, source).toBe(plain.nodes);
  } finally {
    tree.delete();
  }
  return true;
}

const PLAIN_WORDS = [
  ...['cat', 'README.md', 'src/app.ts', '-rf', '-n', '-', '--', '-.', '-_', '-/', '.', '..', '/', './x.sh', '/bin/ls', 'a-b', '_', 'A', 'x.y/z', 'git', 'status', 'a--', 'x-5'],
  ...['~', '~/.ssh/id_rsa', '~root', '~+', '~-', '~5', 'a~', 'user:staff', ':', 'HEAD:.env', 'a,b', ',', '@.env', 'u@h:/x', '@', '%', '%1', '%%', '+1', '+', '-+', '+5', 'https://x.example/a'],
];
const TRICKY_WORDS = [
  ...['if', 'then', 'else', 'elif', 'fi', 'case', 'esac', 'for', 'select', 'while', 'until', 'do', 'done', 'in', 'function', 'time', 'coproc'],
  ...['declare', 'typeset', 'export', 'readonly', 'local', 'unset', 'unsetenv', 'test', 'source', 'eval', 'exec', 'builtin', 'command', 'let', 'alias', 'shopt'],
  ...['5', '-5', '0x1f', '-0', '1a', '--5', '-x5', '5x', '0', '10#5', '-0x1', '.5', '-.5', '5.', '/5', '_5', 'x=1', '--k=v', '==', '=~', 'a=', '{', '}', '!', '[[', '#', '?', '*'],
];
/** Pipes and redirections, the ones the fast path takes and their near misses. */
const OPERATOR_WORDS = ['|', '|', '>', '>', '>>', '<', '2>&1', '2>&1', '1>&2', '2>/dev/null', '2>>log', '2>', '>&', '&>', '>&2', '3>&1', '2>&', '>|', '&&', ';', '&', '||', '|&', '<<', '<<<', '<>', '2<x', '1>x', '2>&-', '2>done'];
const CHARS = [...'abcxyzAZ059_./-~:,@%+=|<>&', ' ', ' ', ' '];
const SEPARATORS = [' ', ' ', ' ', '  ', '\t', ' \\\n '];

const wordLines = fc
  .array(fc.tuple(fc.constantFrom(...PLAIN_WORDS, ...PLAIN_WORDS, ...PLAIN_WORDS, ...TRICKY_WORDS, ...OPERATOR_WORDS), fc.constantFrom(...SEPARATORS)), { minLength: 1, maxLength: 10 })
  .chain((pairs) => fc.tuple(fc.constant(pairs), fc.constantFrom('', '', '', ' ')))
  .map(([pairs, edge]) => edge + pairs.map(([word, separator], index) => (index === 0 ? word : separator + word)).join('') + edge);
/** Commands with redirections, joined into pipelines: mostly in the fast path's language, with its near misses. */
const REDIRECTIONS = ['> out.txt', '>> log', '< in', '2>&1', '1>&2', '2>/dev/null', '2>>log', '> ~/x', '> -x'];
const NEAR_REDIRECTIONS = ['> done', '>out', '2> x', '&> x', '> 5', '>& 2', '3>&1', '2>&', '> a=b'];
const JOINS = [' | ', '  |  ', ' |', '| ', ' || ', ' && ', '; ', ' |& '];
const mostly = <T>(usual: readonly T[], rare: readonly T[]): fc.Arbitrary<T> => fc.oneof({ arbitrary: fc.constantFrom(...usual), weight: 6 }, { arbitrary: fc.constantFrom(...rare), weight: 1 });
const stageLines = fc
  .array(
    fc.tuple(
      mostly(PLAIN_WORDS, TRICKY_WORDS),
      fc.array(mostly(PLAIN_WORDS, TRICKY_WORDS), { maxLength: 3 }),
      fc.array(mostly(REDIRECTIONS, NEAR_REDIRECTIONS), { maxLength: 2 }),
      mostly([' | '], JOINS),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((stages) => stages.map(([name, args, redirects, join], index) => (index === 0 ? '' : join) + [name, ...args, ...redirects].join(' ')).join(''));
const charLines = fc.array(fc.constantFrom(...CHARS), { minLength: 1, maxLength: 24 }).map((chars) => chars.join(''));

describe('plainCommandTree', () => {
  it('builds the tree tree-sitter-bash gives for every plain corpus command, and takes a good share of them', () => {
    const commands = loadCorpus().map((entry) => entry.command);
    const taken = commands.filter(holdsToParser);
    expect(taken.length).toBeGreaterThan(commands.length / 5);
    const lines = ['cat README.md', 'grep -rn TODO src', 'rm -rf  build/out', './deploy.sh --dry-run', 'cat -- -n', 'npm test', 'echo done'];
    const redirected = ['grep -n answer src/app.ts > /tmp/out.txt', 'cat a >> b', 'cat < a > b', 'npm test 2>&1', 'ls 2>/dev/null', 'make 2>>build.log', 'a 1>&2', 'a > b 2>&1'];
    const pipelines = ['ls | head', 'cat x | grep y | sort > z', 'npm test 2>&1 | tail', 'a > b | c', 'a  |  b 2>&1 | c < d > e'];
    for (const command of [...lines, ...redirected, ...pipelines]) expect(holdsToParser(command), command).toBe(true);
  });

  it('builds the tree tree-sitter-bash gives for every generated line it takes', () => {
    let taken = 0;
    fc.assert(
      fc.property(fc.oneof(wordLines, charLines), (source) => {
        if (holdsToParser(source)) taken += 1;
      }),
      { numRuns: 20_000 },
    );
    expect(taken).toBeGreaterThan(1_000);
  });

  it('builds the tree tree-sitter-bash gives for every generated pipeline with redirections it takes', () => {
    let taken = 0;
    let pipelines = 0;
    fc.assert(
      fc.property(stageLines, (source) => {
        if (!holdsToParser(source)) return;
        taken += 1;
        if (source.includes('|') && source.includes('>')) pipelines += 1;
      }),
      { numRuns: 20_000 },
    );
    expect(taken).toBeGreaterThan(1_000);
    expect(pipelines, `${pipelines} of ${taken}`).toBeGreaterThan(100);
  });

  it('leaves reserved words as names, numbers, other operators and anything but spaces between words to the parser', () => {
    const words = ['if x', 'export A', 'unset x', 'test -f x', 'a | time', 'head -5 x', 'cat 5', 'cat 0x1f', ' cat x', 'cat x ', 'cat\tx', 'a=b', 'cat x=1', 'cat ==', ''];
    const operators = ['cat x;', 'a && b', 'a || b', 'a & b', 'a |& b', 'a |', '| a', 'a | | b', 'a |b', 'a| b', 'cat > x a', 'cat >', 'a > done', 'a &> b', 'a >& b', 'a 3>&1', 'a 2>&', 'a << EOF', 'a <<< x', 'a >| b', 'a > 5', 'cat - 2>/dev/null'];
    for (const source of [...words, ...operators]) {
      expect(plainCommandTree(source), JSON.stringify(source)).toBeUndefined();
    }
  });

  it('gives the parser\'s answer at every node budget around the tree\'s size', () => {
    const plain = createBashParser(grammar, { reuseParses: false });
    for (const source of ['cat README.md', 'grep -e KEY -f patterns.txt src/app.ts', 'ls']) {
      const nodes = plainCommandTree(source)?.nodes ?? 0;
      const tree = parser.parse(source);
      if (!tree) throw new Error('no tree');
      const copied = copySyntaxTree(tree.rootNode, grammar.tables, 60_000, 400);
      tree.delete();
      if (!copied.ok) throw new Error(copied.reason);
      for (const budget of [nodes - 1, nodes, nodes + 1]) {
        expect(plain.parse(source, budget), `${source} at ${budget}`).toEqual(budget < nodes ? { ok: false, message: 'the command is too large to analyze', limit: true } : { ok: true, root: copied.root, nodes });
      }
    }
  });
});
