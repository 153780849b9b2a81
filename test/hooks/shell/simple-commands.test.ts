import { beforeAll, describe, expect, it } from 'vitest';
import { loadShellAnalyzer, type ShellAnalyzer, type SimpleCommand } from '../../../src/hooks/shell/index.js';

/**
 * `commands` lists every simple command that runs, wrappers peeled and nested code included,
 * so a guard can refuse a command by its words wherever it hides (`svc approvals approve …`).
 */

let analyzer: ShellAnalyzer;
const context = { cwd: '/tmp/svc-shell-commands', home: '/tmp/svc-shell-commands-home' };

beforeAll(async () => {
  analyzer = await loadShellAnalyzer();
});

function commands(command: string): SimpleCommand[] {
  const result = analyzer.analyze(command, context);
  if (!result.ok) throw new Error(result.message);
  return result.commands;
}

const approve = ['svc', 'approvals', 'approve', 'ap_1'];

describe('simple commands', () => {
  it('peels wrappers', () => {
    expect(commands('sudo -u root env -i X=1 timeout -s KILL 5 nice -n 2 nohup cat f')).toEqual([{ argv: ['cat', 'f'], dynamic: false }]);
    expect(commands('command svc approvals approve ap_1')).toEqual([{ argv: approve, dynamic: false }]);
  });

  it('finds commands in lists, pipelines, subshells, substitutions and nested shells', () => {
    for (const line of [
      'svc approvals approve ap_1',
      'true && svc approvals approve ap_1 | cat',
      '(svc approvals approve ap_1)',
      'echo "$(svc approvals approve ap_1)"',
      "bash -c 'svc approvals approve ap_1'",
      "eval 'svc approvals approve ap_1'",
      'sh <<EOF\nsvc approvals approve ap_1\nEOF',
      "echo 'svc approvals approve ap_1' | sh",
      'f() { svc approvals approve ap_1; }',
      's""vc approvals approve ap_1',
      'find . -exec svc approvals approve ap_1 \\;',
    ]) {
      expect(commands(line).map((command) => command.argv), line).toContainEqual(approve);
    }
  });

  it('keeps dynamic words as written and flags them', () => {
    expect(commands('cat "$F" x')).toEqual([{ argv: ['cat', '"$F"', 'x'], dynamic: true }]);
    expect(commands('echo x | xargs svc approvals approve')).toContainEqual({ argv: ['svc', 'approvals', 'approve', '(xargs input)'], dynamic: true });
    expect(commands('$SVC approvals approve ap_1')).toEqual([{ argv: ['$SVC', 'approvals', 'approve', 'ap_1'], dynamic: true }]);
  });

  it('gives globs and braces as bash would pass them', () => {
    expect(commands('echo {a,b}.txt')).toEqual([{ argv: ['echo', 'a.txt', 'b.txt'], dynamic: false }]);
  });
});

describe('loadShellAnalyzer', () => {
  it('initializes once and returns the same analyzer', async () => {
    const [first, second] = await Promise.all([loadShellAnalyzer(), loadShellAnalyzer()]);
    expect(first).toBe(second);
    expect(first).toBe(analyzer);
  });
});
