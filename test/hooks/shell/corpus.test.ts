import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadShellAnalyzer, type ShellAnalyzer } from '../../../src/hooks/shell/index.js';
import { decideByRules, isProtected, fromCorpusPath, loadCorpus, makeFixtureWorkspace, toCorpusOperation, type CorpusOperation, type FixtureWorkspace } from './corpus.js';

/**
 * Every corpus command, analyzed in a real fixture workspace, must yield exactly the operations
 * written in the corpus (in any order); and every entry's decision must be the one the default
 * protected paths give for those operations — in particular, no entry that touches a protected
 * path may be anything but `deny`.
 */

const corpus = loadCorpus();
let analyzer: ShellAnalyzer;
let fixture: FixtureWorkspace;

beforeAll(async () => {
  analyzer = await loadShellAnalyzer();
  fixture = makeFixtureWorkspace();
});

afterAll(() => fixture.cleanup());

/** A stable key per operation; realPath outside the fixture depends on the machine (/tmp, /etc links) and is left out. */
function normalize(operations: readonly CorpusOperation[]): string[] {
  const inside = (path: string | undefined): boolean => path !== undefined && !path.startsWith('/');
  return operations
    .map((operation) => {
      const keepReal = inside(operation.path) || inside(operation.realPath);
      return JSON.stringify([operation.kind, operation.path ?? null, keepReal ? (operation.realPath ?? null) : null, operation.dynamic ?? null, operation.recursive === true]);
    })
    .sort();
}

describe('shell analysis corpus', () => {
  it('has at least 170 commands, each with a decision and no duplicates', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(170);
    const keys = corpus.map((entry) => `${entry.cwd ?? '.'}\u0000${entry.command}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const entry of corpus) expect(['deny', 'step_up', 'no_opinion']).toContain(entry.decision);
  });

  it.each(corpus.map((entry) => [entry.command.replace(/\n/g, '⏎'), entry] as const))('%s', (_, entry) => {
    // As the hook does: script files are followed unless protected.
    const result = analyzer.analyze(entry.command, { cwd: join(fixture.root, entry.cwd ?? '.'), home: fixture.home, mayReadScript: (path) => !isProtected(path, 'read', fixture) });
    if (entry.unparsable) {
      expect(result.ok).toBe(false);
      return;
    }
    if (!result.ok) throw new Error(`unexpectedly unparsable: ${result.message}`);
    const found = result.operations.map((operation) => toCorpusOperation(operation, fixture));
    expect(normalize(found)).toEqual(normalize(entry.operations));
    expect(result.operations.every((operation) => operation.via.length > 0)).toBe(true);
  });

  it('gives every entry the decision the default protected paths give its operations', () => {
    const wrong = corpus
      .map((entry) => ({ entry, expected: entry.unparsable ? 'deny' : decideByRules(entry.operations, fixture) }))
      .filter(({ entry, expected }) => entry.decision !== expected)
      .map(({ entry, expected }) => `${entry.command}: ${entry.decision}, rules say ${expected}`);
    expect(wrong).toEqual([]);
  });

  it('allows zero protected reads: an entry touching a protected path is always deny', () => {
    const touching = corpus.filter((entry) =>
      entry.operations.some((operation) =>
        [operation.path, operation.realPath].some((path) => path !== undefined && isProtected(fromCorpusPath(path, fixture), operation.kind === 'read' || operation.kind === 'execute' ? 'read' : 'write', fixture)),
      ),
    );
    expect(touching.length).toBeGreaterThan(100);
    expect(touching.filter((entry) => entry.decision !== 'deny').map((entry) => entry.command)).toEqual([]);
  });

  it('covers every decision and every dynamic reason', () => {
    const decisions = new Set(corpus.map((entry) => entry.decision));
    expect([...decisions].sort()).toEqual(['deny', 'no_opinion', 'step_up']);
    const reasons = new Set(corpus.flatMap((entry) => entry.operations.map((operation) => operation.dynamic).filter((reason) => reason !== undefined)));
    expect([...reasons].sort()).toEqual(['arithmetic', 'command_substitution', 'interpreter_code', 'process_substitution', 'unsupported', 'variable']);
    const kinds = new Set(corpus.flatMap((entry) => entry.operations.map((operation) => operation.kind)));
    expect([...kinds].sort()).toEqual(['delete', 'execute', 'read', 'write']);
    expect(corpus.filter((entry) => entry.unparsable).length).toBeGreaterThanOrEqual(5);
  });
});
