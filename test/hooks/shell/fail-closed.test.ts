import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_COMMAND_BYTES } from '../../../src/hooks/shell/analysis-limits.js';
import { loadShellAnalyzer, type ShellAnalysis, type ShellAnalyzer } from '../../../src/hooks/shell/index.js';

/**
 * Whatever the input, analyze returns; what it cannot analyze to the end is `shell_unparsable`,
 * which the hook turns into a refusal. None of these may throw or take long.
 */

let analyzer: ShellAnalyzer;
const context = { cwd: '/tmp/svc-shell-fail-closed', home: '/tmp/svc-shell-fail-closed-home' };

beforeAll(async () => {
  analyzer = await loadShellAnalyzer();
});

function analyze(command: string): ShellAnalysis {
  const started = performance.now();
  const result = analyzer.analyze(command, context);
  // A guard against an analysis that does not end, not a speed check: the analysis gives up by
  // itself after 2 s, which a loaded machine may overrun by a little.
  expect(performance.now() - started).toBeLessThan(10_000);
  return result;
}

function expectUnparsable(command: string, message?: RegExp): void {
  const result = analyze(command);
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.code).toBe('shell_unparsable');
  if (message) expect(result.message).toMatch(message);
}

describe('fail closed', () => {
  it.each(['cat "unterminated', "echo 'x", 'if true; then echo', 'for x in; do', 'cat $(', 'echo ${', ')', 'cat <<EOF\nno end', 'a && ', '|| b', 'case x in'])('refuses %j', (command) => {
    expectUnparsable(command, /parse/);
  });

  it.each(['done', 'fi; cat .env', 'then x', 'esac'])('refuses a misplaced reserved word the grammar lets through: %j', (command) => {
    expectUnparsable(command, /unexpected/);
  });

  it('refuses nested code that does not parse', () => {
    expectUnparsable(`bash -c 'cat "x'`, /nested/);
    expectUnparsable(`eval 'if'`, /nested/);
    expectUnparsable(`sh <<'EOF'\nfor\nEOF`, /nested/);
  });

  it('refuses a command longer than the limit', () => {
    expectUnparsable(`echo ${'a'.repeat(MAX_COMMAND_BYTES)}`, /longer than/);
    // Multi-byte characters count in UTF-8 bytes, like the limit says.
    expectUnparsable(`echo ${'é'.repeat(MAX_COMMAND_BYTES / 2)}`, /longer than/);
  });

  it('refuses a command with more syntax nodes than the limit', () => {
    // (On a busy machine the parse may hit its time budget first: refused either way.)
    expectUnparsable('a;'.repeat(30_000), /too large|too long/);
  });

  it('refuses a command nested deeper than the limit, without overflowing the stack', () => {
    expectUnparsable(`echo ${'$('.repeat(2_000)}x${')'.repeat(2_000)}`, /deep/);
    expectUnparsable(`${'('.repeat(5_000)}true${')'.repeat(5_000)}`, /deep/);
    expectUnparsable(`${'{ '.repeat(3_000)}true${'; }'.repeat(3_000)}`, /deep/);
  });

  it('refuses code in strings nested deeper than the limit', () => {
    expectUnparsable(`${'eval '.repeat(20)}cat .env`, /nested more than/);
    let command = 'cat .env';
    for (let level = 0; level < 12; level += 1) command = `sh <<E${level}\n${command}\nE${level}`;
    expectUnparsable(command, /nested more than/);
    let quoted = 'cat .env';
    for (let level = 0; level < 6; level += 1) quoted = `sh -c ${quote(quoted)}`;
    expect(analyze(quoted).ok).toBe(true);
  });

  it('refuses a command line that runs more commands or operations than the limits', () => {
    expectUnparsable('true\n'.repeat(6_000), /more than/);
    expectUnparsable(Array.from({ length: 6 }, (_, i) => `touch {${i * 2000 + 1}..${i * 2000 + 2000}}`).join('; '), /file operations/);
  });

  it('refuses inputs that are not what the API promises', () => {
    expect(analyzer.analyze(undefined as unknown as string, context).ok).toBe(false);
    expect(analyzer.analyze('cat x', { cwd: 'relative', home: '/h' }).ok).toBe(false);
    expect(analyzer.analyze('cat x', { cwd: '/w', home: 'relative' }).ok).toBe(false);
  });

  it('analyzes odd but valid input without throwing', () => {
    for (const command of ['', ' ', '\n\n', '#!/bin/sh\n# only a comment', 'cat \u0000.env', 'echo \ud800', 'cat 😀 $\'\\xff\'', ':', '{ :; }', 'x=()', 'echo $((1/0))']) {
      const result = analyze(command);
      expect(typeof result.ok).toBe('boolean');
    }
    expect(analyze('')).toEqual({ ok: true, commands: [], operations: [] });
  });
});

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

describe('bounded filesystem work', () => {
  it('stops listing directories for globs past the limit, reporting the word as unsupported', () => {
    const result = analyzer.analyze('cat /*/*/*/*/no-such-name-*', { cwd: '/', home: '/root' });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.operations).toHaveLength(1);
    expect(result.operations[0]?.path ?? result.operations[0]?.dynamic?.reason).toMatch(/no-such-name|unsupported/);
  });
});
