/**
 * The last build step, run by scripts/bundle-hook.ts in a child process whose HOME is a fresh
 * temporary directory: runs typical hook calls through the engine bundle in this process, then
 * saves the V8 code cache beside it (src/cli/code-cache.ts). The cache then holds the bytecode of
 * every function those calls ran, which a hook process would otherwise compile on every call.
 *
 *   node dist/scripts/warm-hook-cache.js <engine.cjs> <workspace made by `svc init`>
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeCodeCache } from '../src/cli/code-cache.js';
import { loadHookEngine } from '../src/cli/hook-engine.js';

const [bundleFile, ws] = process.argv.slice(2);
if (bundleFile === undefined || ws === undefined) throw new Error('usage: warm-hook-cache.js <engine.cjs> <workspace>');

mkdirSync(join(ws, 'src'), { recursive: true });
writeFileSync(join(ws, 'src/app.ts'), 'export const answer = 42;\n');

const toolCall = (tool: string, input: Record<string, unknown>): object => ({ session_id: 'warm-up', transcript_path: join(ws, 't.jsonl'), cwd: ws, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input });
// Only the calls whose code nearly every call runs: V8 deserializes a code cache whole, so the
// bytecode of functions one kind of call needs costs every other call more than compiling it
// costs that one. Under callgrind, a cache warmed on these two (1.09 MB) took 1.5-3% fewer
// instructions than one warmed on nine calls of every kind (1.24 MB) for each kind measured:
// this Bash line, one that needs the bash grammar, a protected read, git status, git diff, Read.
const calls = [toolCall('Bash', { command: 'grep -n answer src/app.ts > /tmp/svc-warm-up.txt' }), toolCall('Read', { file_path: join(ws, 'src/app.ts') })];

const { engine, bundle } = await loadHookEngine(bundleFile);
if (!bundle) throw new Error(`${bundleFile} is missing`);
for (const event of calls) {
  const run = await engine.runHook({ runtime: 'claude-code', stdin: JSON.stringify(event), timeoutMs: 60_000 });
  // A cache warmed on failures would hold the wrong code: each call must be decided, with no opinion.
  if (run.output.stdout !== '' || run.output.exitCode !== 0) throw new Error(`warm-up call ${JSON.stringify(event)} answered ${run.output.stdout || '(nothing)'} (exit ${run.output.exitCode}), expected no opinion: ${run.output.stderr}`);
}
writeCodeCache(bundleFile, bundle);
