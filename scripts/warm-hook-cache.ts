/**
 * The last build step, run by scripts/bundle-hook.ts in a child process whose HOME is a fresh
 * temporary directory: runs typical hook calls through the engine bundle in this process, then
 * saves the V8 code cache beside it (src/cli/code-cache.ts). The cache then holds the bytecode of
 * every function those calls ran, which a hook process would otherwise compile on every call.
 *
 *   node dist/scripts/warm-hook-cache.js <engine.cjs> <workspace made by `svc init`>
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeCodeCache } from '../src/cli/code-cache.js';
import { loadHookEngine } from '../src/cli/hook-engine.js';

const [bundleFile, ws] = process.argv.slice(2);
if (bundleFile === undefined || ws === undefined) throw new Error('usage: warm-hook-cache.js <engine.cjs> <workspace>');

mkdirSync(join(ws, 'src'), { recursive: true });
writeFileSync(join(ws, 'src/app.ts'), 'export const answer = 42;\n');
writeFileSync(join(ws, '.env'), 'API_KEY=warm-up\n');
// A repository with a tracked .env, so that `git diff` below reads git's index and checks the
// protected file it lists, as in most workspaces. Without git here the calls are decided all the
// same; only that code stays out of the cache.
for (const args of [['init', '-q'], ['add', '-A']]) spawnSync('git', args, { cwd: ws, stdio: 'ignore' });

const toolCall = (tool: string, input: Record<string, unknown>): object => ({ session_id: 'warm-up', transcript_path: join(ws, 't.jsonl'), cwd: ws, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input });
// What a coding agent asks most: shell commands (plain, with redirections and pipes, a diff, a
// protected read, a risky command), file reads, edits and searches, and a prompt.
const calls: { event: object; expect: 'deny' | 'no opinion' }[] = [
  { event: toolCall('Bash', { command: 'grep -n answer src/app.ts > /tmp/svc-warm-up.txt' }), expect: 'no opinion' },
  { event: toolCall('Bash', { command: 'git status && npm test 2>&1 | tail -n 20' }), expect: 'no opinion' },
  { event: toolCall('Bash', { command: 'git diff' }), expect: 'no opinion' },
  { event: toolCall('Bash', { command: 'cat .env' }), expect: 'deny' },
  { event: toolCall('Bash', { command: 'git push origin main' }), expect: 'deny' },
  { event: toolCall('Read', { file_path: join(ws, 'src/app.ts') }), expect: 'no opinion' },
  { event: toolCall('Edit', { file_path: join(ws, 'src/app.ts'), old_string: '42', new_string: '43' }), expect: 'no opinion' },
  { event: toolCall('Grep', { pattern: 'answer', path: join(ws, 'src') }), expect: 'no opinion' },
  { event: { session_id: 'warm-up', transcript_path: join(ws, 't.jsonl'), cwd: ws, hook_event_name: 'UserPromptSubmit', prompt: 'explain src/app.ts' }, expect: 'no opinion' },
];

const { engine, bundle } = await loadHookEngine(bundleFile);
if (!bundle) throw new Error(`${bundleFile} is missing`);
for (const { event, expect } of calls) {
  const run = await engine.runHook({ runtime: 'claude-code', stdin: JSON.stringify(event), timeoutMs: 60_000 });
  const answer = run.output.stdout;
  const got = answer === '' ? 'no opinion' : answer.includes('"permissionDecision":"deny"') ? 'deny' : answer;
  // A cache warmed on failures would hold the wrong code: every call must be decided as expected.
  if (got !== expect || run.output.exitCode !== 0) throw new Error(`warm-up call ${JSON.stringify(event)} answered ${got} (exit ${run.output.exitCode}), expected ${expect}: ${run.output.stderr}`);
}
writeCodeCache(bundleFile, bundle);
