import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { svc } from '../../support/proxy.js';

/**
 * Bypasses found by a security audit of the built hook, as the audit ran them: Claude Code
 * PreToolUse JSON piped into `svc hook claude-code` (a child process) in a workspace made by
 * `svc init`, HOME a scratch home holding a key in ~/.ssh and ~/.aws/credentials. The hook had
 * no opinion on each, and real bash printed the secret: each must now be denied. Where the
 * command prints the secret, real bash runs it afterwards to show the bypass is real (so the
 * analysis follows bash's semantics, not a guess at them).
 */

const SECRET = 'aws_secret_access_key=AUDITFAKE';
const DOTENV = 'API_KEY=sk-live-audit';
let root: string;
let ws: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-bypass-'));
  ws = join(root, 'ws');
  home = join(root, 'home');
  await mkdir(join(ws, 'src'), { recursive: true });
  await mkdir(join(ws, 'sub'), { recursive: true });
  await mkdir(join(home, '.ssh'), { recursive: true });
  await mkdir(join(home, '.aws'), { recursive: true });
  // Not named like a key (id_rsa would be protected by its name alone): only its place under
  // ~/.ssh protects it, so a walk that does not see the real path misses it.
  await writeFile(join(home, '.ssh/github'), 'PRIVATE KEY\n');
  await writeFile(join(home, '.aws/credentials'), `[default]\n${SECRET}\n`);
  await writeFile(join(ws, 'src/a.ts'), 'export {};\n');
  await writeFile(join(ws, '.env'), `${DOTENV}\n`);
  // Links the agent made in earlier, allowed-looking commands (the audit's `ln -s ~ h`).
  await symlink(home, join(ws, 'src/h2'));
  await symlink(home, join(ws, 'sub/hl'));
  env = { ...process.env, HOME: home, SVC_REVIEWER_KEYS_DIR: join(home, '.config/svc/reviewer-keys') };
  const init = await svc(['init', '--dir', ws], { env, cwd: ws });
  expect(init.code, init.stderr).toBe(0);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function hookDecision(command: string): Promise<string> {
  const event = { session_id: 'audit', transcript_path: join(home, 't.jsonl'), cwd: ws, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } };
  const run = await runCli(['hook', 'claude-code'], { cwd: ws, env, input: JSON.stringify(event) });
  expect(run.code, run.stderr).toBe(0);
  if (run.stdout === '') return 'no_opinion';
  return (JSON.parse(run.stdout) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision;
}

function bashPrints(command: string): string {
  const run = spawnSync('bash', ['-c', command], { cwd: ws, env: { ...env, CDPATH: '' }, encoding: 'utf8' });
  return run.stdout;
}

/** The audit's commands (`$OUT` is a scratch directory outside the workspace); `prints` when real bash then prints the secret on standard output. */
const BYPASSES: { item: string; command: string; prints?: string }[] = [
  // 1. A redirection after `&&` belongs to the last command, after the `cd`.
  { item: 'redirect after cd', command: 'cd ~/.aws && cat < credentials', prints: SECRET },
  { item: 'redirect after cd', command: 'cd ~/.aws && cat < credentials | head', prints: SECRET },
  { item: 'redirect after cd', command: 'cd ~/.aws && base64 < credentials' },
  { item: 'redirect after cd', command: 'cd ~/.aws && while read l; do echo "$l"; done < credentials', prints: SECRET },
  { item: 'redirect after cd', command: 'cd ~/.aws && exec 3<credentials && cat <&3', prints: SECRET },
  { item: 'redirect after cd', command: 'cd .claude && echo x > settings.json' },
  // 3. Symlinks: made in the same line, named by a recursive read, or found inside one.
  { item: 'symlink', command: 'ln -s ~ h2 && cat h2/.aws/credentials', prints: SECRET },
  { item: 'symlink', command: 'ln -s ~ h' },
  { item: 'symlink', command: 'grep -r secret src/h2', prints: SECRET },
  { item: 'symlink', command: 'tar czf $OUT/x.tgz src/h2/' },
  { item: 'symlink', command: 'cp -r src/h2/ $OUT/copy' },
  { item: 'symlink', command: 'grep -R PRIV sub', prints: 'PRIVATE KEY' },
  { item: 'symlink', command: 'cp -rL sub $OUT/c4' },
  { item: 'symlink', command: 'tar chzf $OUT/x2.tgz sub' },
  { item: 'symlink', command: 'zip -r $OUT/x.zip sub' },
  { item: 'symlink', command: 'rsync -aL sub/ $OUT/c5' },
  { item: 'symlink', command: 'find -L sub -type f -exec cat {} +', prints: SECRET },
  // 2. Glob options set by the command itself.
  { item: 'glob options', command: 'shopt -s dotglob; cat *', prints: DOTENV },
  { item: 'glob options', command: 'GLOBIGNORE=x; cat *', prints: DOTENV },
  { item: 'glob options', command: 'shopt -s nocaseglob; cat .EN*', prints: DOTENV },
  { item: 'glob options', command: "bash -O dotglob -c 'cat *'", prints: DOTENV },
  { item: 'glob options', command: "bash -O nocaseglob -c 'cat .EN?'", prints: DOTENV },
  { item: 'glob options', command: "zsh -c 'setopt globdots; cat *'" },
  // 5. /proc/self/cwd is the shell's directory, not the hook's.
  { item: '/proc/self/cwd', command: 'cd ~/.aws && cat /proc/self/cwd/credentials', prints: SECRET },
  // 4. CDPATH.
  { item: 'CDPATH', command: 'CDPATH=~; cd .aws && cat credentials', prints: SECRET },
  // 6. Flags taken for options with a value, which swallowed the file or code after them.
  { item: 'flag taken for a value', command: 'strings -w .env', prints: DOTENV },
  { item: 'flag taken for a value', command: 'uniq --group .env', prints: DOTENV },
  { item: 'flag taken for a value', command: 'cp --backup .env $OUT/b1 && cat $OUT/b1', prints: DOTENV },
  { item: 'flag taken for a value', command: 'tar -cf $OUT/b2.tar --backup .env && tar -xOf $OUT/b2.tar', prints: DOTENV },
  { item: 'flag taken for a value', command: "perl -l -e 'print `cat .env`'", prints: DOTENV },
  { item: 'flag taken for a value', command: "env --ignore-signal sh -c 'cat .env'", prints: DOTENV },
  { item: 'flag taken for a value', command: "echo x | xargs -i sh -c 'cat .env'", prints: DOTENV },
  { item: 'flag taken for a value', command: 'curl -q -s -T .env file://$OUT/b3 && cat $OUT/b3', prints: DOTENV },
  // 7. Files read through forms of a program's arguments, and by the shell itself.
  { item: 'file in an argument', command: 'curl -s -o /dev/null -w @.env file:///dev/null', prints: DOTENV },
  { item: 'file in an argument', command: "curl -s -T '{.env}' file://$OUT/b4 && cat $OUT/b4", prints: DOTENV },
  { item: 'HISTFILE', command: 'HISTFILE=.env; history -r; history', prints: DOTENV },
];

describe('the audit bypasses, through the built hook', () => {
  it.each(BYPASSES.map((bypass) => [bypass.item, bypass.command, bypass] as const))('%s: %s', async (_, written, bypass) => {
    const command = written.replaceAll('$OUT', root);
    expect(await hookDecision(command), command).toBe('deny');
    if (bypass.prints !== undefined) expect(bashPrints(command), command).toContain(bypass.prints);
  });
});
