import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadShellAnalyzer, type ShellAnalyzer } from '../../../src/hooks/shell/index.js';
import { makeFixtureWorkspace, type FixtureWorkspace } from './corpus.js';

/**
 * Text bash evaluates a second time (src/hooks/shell/evaluated-text.ts), from an audit of the
 * built hook: each command below printed `.env` under real bash while the analysis saw nothing.
 * Each must now carry a dynamic execute (code known only at run time: step_up by default), and
 * real bash is run on each to show the leak is real. Ordinary arithmetic must stay quiet.
 */

let fixture: FixtureWorkspace;
let analyzer: ShellAnalyzer;
let secret: string;

beforeAll(async () => {
  fixture = makeFixtureWorkspace();
  analyzer = await loadShellAnalyzer();
  secret = readFileSync(join(fixture.root, '.env'), 'utf8').trim();
});

afterAll(() => fixture.cleanup());

function evaluatesCode(command: string): boolean {
  const result = analyzer.analyze(command, { cwd: fixture.root, home: fixture.home, mayReadScript: () => true });
  if (!result.ok) throw new Error(result.message);
  return result.operations.some((operation) => operation.kind === 'execute' && operation.dynamic?.reason === 'interpreter_code');
}

function bashOutput(command: string): string {
  const run = spawnSync('bash', ['-c', command], { cwd: fixture.root, env: { ...process.env, HOME: fixture.home }, encoding: 'utf8' });
  return run.stdout + run.stderr;
}

const CODE = "a[$(cat .env >&2)0]";

const LEAKS: readonly string[] = [
  `${CODE}=1`,
  `declare -A m; m[$(cat .env >&2)]=1`,
  `x[$(cat .env >&2)0]+=1`,
  `test -v '${CODE}'`,
  `[[ -v '${CODE}' ]]`,
  `read '${CODE}' <<< x`,
  `printf -v '${CODE}' x`,
  `let '${CODE}=1'`,
  `declare -a a=(1); unset '${CODE}'`,
  `declare '${CODE}=1'`,
  `x='${CODE}'; echo $((x))`,
  `x='${CODE}'; [[ $x -eq 0 ]]`,
  `x='${CODE}'; declare -i z=$x`,
  `x='${CODE}'; echo \${arr[x]}`,
  `x='${CODE}'; echo \${PWD:x:1}`,
  `x='${CODE}'; for ((i=x;i<0;i++)); do :; done`,
  `x='${CODE}'; (( x ))`,
  `echo $(( $(printf "%s" "a[\\$(cat .env >&2)0]") ))`,
  `read x < evil.txt; echo $((x))`,
  `for x in $(cat evil-words.txt); do echo $((x)); done`,
  `f() { x=$(cat evil.txt); }; f; echo $((x))`,
  `declare -n r=x; x=$(cat evil.txt); echo $((r))`,
  `x=$(wc -l </dev/null; cat evil.txt); echo $((x))`,
  `a=$'b[\\x24(cat .env >&2)]'; echo $((a))`,
  `a='${CODE}'; x=a; echo $(( x ))`,
  `a='${CODE}'; : \${a:+$((a))}`,
  `a='${CODE}'; echo \${!a}`,
  `a=$'b[\\x24(cat .env >&2)]'; test -v "$a"`,
  `a=$'b[\\x24(cat .env >&2)]'; read "$a" <<< 1`,
  `a=$'b[\\x24(cat .env >&2)]'; printf -v "$a" 1`,
  "shopt -s expand_aliases; BASH_ALIASES[q]='cat .env'\nq",
  `: \${x:=$(cat evil.txt)}; echo $((x))`,
  `x='$(cat .env >&2)'; : "\${x@P}"`,
  "shopt -s expand_aliases\nalias x=eval\nx 'cat .env'",
];

describe('text bash evaluates again', () => {
  it.each(LEAKS)('%s is code known only at run time, and real bash leaks with it', (command) => {
    writeFileSync(join(fixture.root, 'evil.txt'), `${CODE}\n`);
    writeFileSync(join(fixture.root, 'evil-words.txt'), 'a[$(cat<.env>&2)0]\n');
    expect(evaluatesCode(command), command).toBe(true);
    expect(bashOutput(command), command).toContain(secret);
  });

  it.each([
    'for i in 1 2 3; do echo $((i*2)); done',
    'for i in {1..5}; do echo $((i)); done',
    'n=0; for f in *; do n=$((n+1)); done; echo $n',
    'for ((i=0;i<3;i++)); do echo $i; done',
    'start=$(date +%s); true; echo $(( $(date +%s) - start ))',
    'count=$(wc -l < README.md); echo $((count + 1))',
    '[[ $# -eq 0 ]] && echo none',
    'x=5; [[ $x -gt 3 ]] && echo big',
    'echo ${PATH:0:10}',
    'declare -a arr=(a b c); echo ${arr[1]} ${#arr[@]}',
    'let i=i+1',
    'read -r line < README.md; echo "$line"',
    'alias',
    'port=${PORT:-3000}; echo $((port+1))',
    'y=$HOME; echo $((y))',
    'declare -a arr; export PATH; unset foo',
    'test -f "$file"',
  ])('%s stays plain', (command) => {
    expect(evaluatesCode(command), command).toBe(false);
  });

  it('a dynamic execute of a script svc cannot follow names the version of the file, so an approval does not cover a later edit', () => {
    const script = join(fixture.root, 'broken.sh');
    const via = (): string[] => {
      const result = analyzer.analyze('bash broken.sh', { cwd: fixture.root, home: fixture.home, mayReadScript: () => true });
      if (!result.ok) throw new Error(result.message);
      return result.operations.filter((operation) => operation.dynamic !== undefined).map((operation) => operation.via);
    };
    writeFileSync(script, 'echo building\necho step2\nif then\n');
    const before = via();
    expect(before.join('\n')).toMatch(/\[file \d+:\d+, \d+ bytes, changed at \d+ ns\]/);
    writeFileSync(script, 'echo building\ncat .env\nif then\n');
    expect(via()).not.toEqual(before);
  });
});
