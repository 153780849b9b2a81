import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_COMMAND_BYTES } from '../../../src/hooks/shell/analysis-limits.js';
import { loadShellAnalyzer, type ShellAnalyzer } from '../../../src/hooks/shell/index.js';
import { isShellScript } from '../../../src/hooks/shell/script-files.js';
import type { FileOperation } from '../../../src/hooks/shell/shell-analysis.js';
import { startHookEngine } from '../hook-engine.js';

/**
 * Scripts run from files (script-files.ts): followed when the analysis may read them, never read
 * when it may not, and code known only at run time when they cannot be followed. The corpus holds
 * the everyday cases; these are the edges.
 */

let analyzer: ShellAnalyzer;
let root: string;
let home: string;

beforeAll(async () => {
  analyzer = await loadShellAnalyzer();
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'svc-script-files-')));
  root = join(base, 'project');
  home = join(base, 'home');
  mkdirSync(root);
  mkdirSync(home);
  writeFileSync(join(root, '.env'), 'echo fixture-secret-value\n');
  writeFileSync(join(root, 'leak.sh'), 'cat .env\n');
  writeFileSync(join(root, 'big.sh'), `${'# padding\n'.repeat(MAX_COMMAND_BYTES / 10)}cat .env\n`);
  writeFileSync(join(root, 'program'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 0]));
  execFileSync('mkfifo', [join(root, 'pipe.sh')]);
});

afterAll(() => {
  rmSync(join(root, '..'), { recursive: true, force: true });
});

function operations(command: string, mayReadScript: (path: string) => boolean = () => true): FileOperation[] {
  const result = analyzer.analyze(command, { cwd: root, home, mayReadScript });
  if (!result.ok) throw new Error(result.message);
  return result.operations;
}

describe('which files a kernel hands to a shell', () => {
  it.each([
    ['cat .env\n', true],
    ['#!/bin/sh\ncat .env', true],
    ['#!/usr/bin/env bash\n', true],
    ['#!/usr/bin/env -S bash -e\n', true],
    ['#! /bin/zsh -f\n', true],
    ['#!/usr/bin/env python3\nprint(1)', false],
    ['#!/usr/bin/fish\n', false],
    ['#!/usr/bin/env node', false],
  ])('%j → %s', (text, shell) => {
    expect(isShellScript(text)).toBe(shell);
  });
});

describe('script files', () => {
  it('follows a script the analysis may read', () => {
    expect(operations('bash leak.sh').map((operation) => [operation.kind, operation.path])).toEqual([
      ['execute', join(root, 'leak.sh')],
      ['read', join(root, '.env')],
    ]);
  });

  it('does not read a script it may not read: only the execute is reported', () => {
    const asked: string[] = [];
    const found = operations('bash leak.sh', (path) => {
      asked.push(path);
      return false;
    });
    expect(found.map((operation) => operation.kind)).toEqual(['execute']);
    expect(asked).toEqual([join(root, 'leak.sh')]);
  });

  it('reads no file when the caller gives no permission at all', () => {
    const result = analyzer.analyze('bash leak.sh', { cwd: root, home });
    expect(result.ok && result.operations.map((operation) => operation.kind)).toEqual(['execute']);
  });

  it('makes a script over the size limit code known only at run time', () => {
    const last = operations('sh big.sh').at(-1);
    expect(last).toMatchObject({ kind: 'execute', dynamic: { reason: 'interpreter_code' } });
    expect(last?.via).toMatch(/larger than/);
  });

  it('does not wait on a FIFO named like a script, and does not trust it', () => {
    const started = performance.now();
    const last = operations('bash pipe.sh').at(-1);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(last).toMatchObject({ kind: 'execute', dynamic: { reason: 'interpreter_code' } });
    expect(last?.via).toMatch(/FIFO/);
  });

  it('leaves a binary program opaque', () => {
    expect(operations('./program').map((operation) => operation.kind)).toEqual(['execute']);
  });

  it('leaves a program over the size limit opaque when its first bytes show a compiled program or another language, and only a shell script that large dynamic', () => {
    const padding = Buffer.alloc(MAX_COMMAND_BYTES + 1, 0x41);
    writeFileSync(join(root, 'big-program'), Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 0]), padding]));
    writeFileSync(join(root, 'big.py'), Buffer.concat([Buffer.from('#!/usr/bin/env python3\n'), padding]));
    execFileSync('chmod', ['+x', join(root, 'big-program'), join(root, 'big.py'), join(root, 'big.sh')]);
    expect(operations('./big-program').map((operation) => operation.kind)).toEqual(['execute']);
    expect(operations('./big.py').map((operation) => operation.kind)).toEqual(['execute']);
    // bash runs a compiled program's bytes when sourced (skipping NULs), so that stays unknown; so does a large shell script run by path.
    expect(operations('source big-program').at(-1)).toMatchObject({ kind: 'execute', dynamic: { reason: 'interpreter_code' } });
    expect(operations('./big.sh').at(-1)).toMatchObject({ kind: 'execute', dynamic: { reason: 'interpreter_code' } });
    // A real one: /bin/ls is larger than the limit.
    expect(operations('/bin/ls -la').map((operation) => operation.kind)).toEqual(['execute']);
  });

  it('runs a file the line writes as code known only at run time, whatever is on disk', () => {
    const found = operations("echo 'cat README.md' > leak.sh; bash leak.sh");
    expect(found.map((operation) => [operation.kind, operation.path ?? operation.dynamic?.reason])).toEqual([
      ['write', join(root, 'leak.sh')],
      ['execute', join(root, 'leak.sh')],
      ['execute', 'interpreter_code'],
    ]);
  });

  it('follows a script past a NUL after its first line, as bash does, and leaves one with a NUL in its first line to the kernel', () => {
    writeFileSync(join(root, 'nul-later.sh'), 'echo a\n\0\ncat .env\n');
    writeFileSync(join(root, 'nul-first.sh'), 'echo\0 a\ncat .env\n');
    expect(operations('bash nul-later.sh').map((operation) => operation.path)).toContain(join(root, '.env'));
    expect(operations('source nul-first.sh').map((operation) => operation.path)).toContain(join(root, '.env'));
    expect(operations('bash nul-first.sh').map((operation) => operation.kind)).toEqual(['execute']);
  });

  it('follows a #! line that reaches a shell through another program', () => {
    writeFileSync(join(root, 'niced.sh'), '#!/usr/bin/nice bash\ncat .env\n');
    expect(operations('./niced.sh').map((operation) => operation.path)).toContain(join(root, '.env'));
  });

  it('does not read a script with other names (a hard link could be a protected file): it is unknown code', () => {
    linkSync(join(root, 'leak.sh'), join(root, 'linked.sh'));
    const last = operations('bash linked.sh').at(-1);
    expect(last).toMatchObject({ kind: 'execute', dynamic: { reason: 'interpreter_code' } });
    expect(last?.via).toMatch(/hard link/);
    rmSync(join(root, 'linked.sh'));
  });

  it('refuses a command whose scripts exhaust the analysis, instead of skipping them', () => {
    writeFileSync(join(root, 'heavy.sh'), `echo "${'$(('.repeat(12_000)}"\n`);
    const result = analyzer.analyze(`${'. heavy.sh; '.repeat(400)}cat README.md`, { cwd: root, home, mayReadScript: () => true });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/too large|takes more than|too long/);
  });

  it('treats a file under a tree the line wrote as unknown code', () => {
    const last = operations('cp -r scripts out && bash out/x.sh').at(-1);
    expect(last).toMatchObject({ kind: 'execute', dynamic: { reason: 'interpreter_code' } });
  });
});

describe('through the hook engine', () => {
  it('never reads a protected file to follow it, so its text reaches no payload', async () => {
    const engine = await startHookEngine({ workspace: root, home });
    try {
      const evaluation = await engine.decideShell('bash .env', root);
      expect(evaluation?.decision).toBe('deny');
      const ledger = readFileSync(engine.ledgerPath, 'utf8');
      expect(ledger).toContain('bash .env');
      expect(ledger).not.toContain('fixture-secret-value');
      expect(readFileSync(join(root, '.env'), 'utf8')).toContain('fixture-secret-value');
    } finally {
      await engine.close();
    }
  });

  it('asks for approval before running a script the line wrote', async () => {
    const engine = await startHookEngine({ workspace: root, home });
    try {
      const evaluation = await engine.decideShell("printf '%s\\n' 'cat .env' > run.sh && sh run.sh", root);
      expect(evaluation?.decision).toBe('step_up');
    } finally {
      await engine.close();
    }
  });
});
