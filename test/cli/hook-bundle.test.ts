import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runScript, type CliResult } from '../support/cli.js';

/**
 * `svc hook` runs from an esbuild bundle (scripts/bundle-hook.ts, built by `npm run build`). The
 * bundle must hold every dependency, keep the engine out of the proxy-forwarding path, and answer
 * exactly as the modules tsc emitted answer.
 */
const BUNDLE = fileURLToPath(new URL('../../dist/src/cli/hook-bundle/', import.meta.url));
const UNBUNDLED = fileURLToPath(new URL('../../dist/test/children/hook-unbundled.js', import.meta.url));

const chunkNames = (): string[] => readdirSync(BUNDLE).filter((name) => name.endsWith('.js'));
const chunkText = (name: string): string => readFileSync(join(BUNDLE, name), 'utf8');

/** Specifiers of static imports and re-exports, dynamic imports and require calls in bundled code. */
function specifiers(code: string): { static: string[]; all: string[] } {
  const staticOnes = [...code.matchAll(/^\s*(?:import|export)\b[^;"']*?\bfrom\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']/gm)].map((match) => (match[1] ?? match[2]) as string);
  const dynamic = [...code.matchAll(/\b(?:import|require|__require)\(\s*["']([^"']+)["']\s*\)/g)].map((match) => match[1] as string);
  return { static: staticOnes, all: [...staticOnes, ...dynamic] };
}

describe('the hook bundle', () => {
  it('holds every dependency: its chunks import only Node builtins and each other', () => {
    const builtins = new Set(builtinModules);
    const names = chunkNames();
    expect(names).toContain('hook-entry.js');
    const strays: string[] = [];
    for (const name of names) {
      for (const specifier of specifiers(chunkText(name)).all) {
        if (specifier.startsWith('./')) {
          if (!names.includes(specifier.slice(2))) strays.push(`${name}: ${specifier} (no such chunk)`);
        } else if (!specifier.startsWith('node:') && !builtins.has(specifier)) {
          strays.push(`${name}: ${specifier}`);
        }
      }
    }
    expect(strays).toEqual([]);
  });

  it('keeps the engine and its dependencies out of what forwarding to a proxy loads', () => {
    // What `svc hook` parses before it knows whether a proxy answers: the entry and the chunks it
    // imports statically. The engine is behind `import('../hooks/run-hook.js')`.
    const loaded = new Set<string>();
    const visit = (name: string): void => {
      if (loaded.has(name)) return;
      loaded.add(name);
      for (const specifier of specifiers(chunkText(name)).static) if (specifier.startsWith('./')) visit(specifier.slice(2));
    };
    visit('hook-entry.js');
    // esbuild names each module it includes in a `// <path>` line (the bundle is not minified);
    // a node_modules folder further up shows as `// ../node_modules/...`.
    const engineModules = [/^\/\/ dist\/src\/hooks\/run-hook\.js$/m, /^\/\/ .*node_modules\/zod\//m, /^\/\/ .*node_modules\/yaml\//m, /^\/\/ .*node_modules\/web-tree-sitter\//m];
    const everything = chunkNames().map(chunkText).join('\n');
    for (const marker of engineModules) expect(everything).toMatch(marker);
    const forwarding = [...loaded].map(chunkText).join('\n');
    for (const marker of engineModules) expect(forwarding).not.toMatch(marker);
    const size = (names: Iterable<string>): number => [...names].reduce((total, name) => total + statSync(join(BUNDLE, name)).size, 0);
    expect(size(loaded)).toBeLessThan(size(chunkNames()) / 20);
  });

  it('is used when built, the unbundled modules only when it is missing, and a broken bundle is an error', () => {
    // A copy of dist/src to break, so the other tests keep their bundle.
    const copy = mkdtempSync(join(tmpdir(), 'svc-hook-bundle-copy-'));
    try {
      cpSync(fileURLToPath(new URL('../../dist/src', import.meta.url)), join(copy, 'dist/src'), { recursive: true, filter: (source) => !source.endsWith('.map') });
      writeFileSync(join(copy, 'package.json'), '{ "type": "module" }\n');
      symlinkSync(fileURLToPath(new URL('../../node_modules', import.meta.url)), join(copy, 'node_modules'), 'dir');
      const hook = (): { status: number | null; stderr: string } => spawnSync(process.execPath, [join(copy, 'dist/src/cli/main.js'), 'hook', 'claude-code'], { cwd: copy, input: 'not json', encoding: 'utf8' });
      const entry = join(copy, 'dist/src/cli/hook-bundle/hook-entry.js');

      writeFileSync(entry, `import './chunk-that-is-not-there.js';\n${readFileSync(entry, 'utf8')}`);
      const broken = hook();
      expect(broken.status).toBe(2);
      expect(broken.stderr).toContain('chunk-that-is-not-there.js');

      rmSync(join(copy, 'dist/src/cli/hook-bundle'), { recursive: true });
      const unbundled = hook();
      expect(unbundled.status, unbundled.stderr).toBe(2);
      expect(unbundled.stderr).toContain('[hook_input_invalid]');
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe('svc hook claude-code from the bundle', () => {
  let root: string;
  let ws: string;
  let snapshot: string;
  let env: NodeJS.ProcessEnv;

  const event = (toolName: string, toolInput: Record<string, unknown>): string =>
    JSON.stringify({ session_id: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f', transcript_path: join(root, 'transcript.jsonl'), cwd: ws, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: toolName, tool_input: toolInput });

  function runUnbundled(args: string[], input: string): Promise<CliResult> {
    return runScript(UNBUNDLED, args, { cwd: ws, env, input });
  }

  /** The decision-relevant part of a `--json` answer; ids, ledger hashes and times differ between runs. */
  function decisionOf(run: CliResult): unknown {
    const answer = JSON.parse(run.stdout) as { mode: unknown; decision: unknown; output: unknown; results: { label: string; decision: string; status: string; reasons: string[]; payloadHash: string }[] };
    return { code: run.code, mode: answer.mode, decision: answer.decision, output: answer.output, results: answer.results.map(({ label, decision, status, reasons, payloadHash }) => ({ label, decision, status, reasons, payloadHash })) };
  }

  /** Each input twice (plain, then --json) through one way of running the hook, on a fresh copy of the workspace. */
  async function answers(run: (args: string[], input: string) => Promise<CliResult>, inputs: readonly string[]): Promise<{ plain: CliResult[]; json: unknown[] }> {
    // The same starting ledger at the same path, so ledger sequence numbers in the answers match.
    rmSync(ws, { recursive: true, force: true });
    cpSync(snapshot, ws, { recursive: true });
    const plain: CliResult[] = [];
    const json: unknown[] = [];
    for (const input of inputs) {
      plain.push(await run(['claude-code'], input));
      json.push(decisionOf(await run(['claude-code', '--json'], input)));
    }
    return { plain, json };
  }

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'svc-hook-bundle-'));
    ws = join(root, 'ws');
    snapshot = join(root, 'snapshot');
    mkdirSync(join(root, 'home'));
    mkdirSync(ws);
    writeFileSync(join(ws, '.env'), 'API_KEY=sk-live-123\n');
    env = { ...process.env, HOME: join(root, 'home'), SVC_REVIEWER_KEYS_DIR: join(root, 'home/.config/svc/reviewer-keys') };
    const init = await runCli(['init', '--dir', ws], { cwd: ws, env });
    expect(init.code, init.stderr).toBe(0);
    // The first hook call creates the signing key and ledger; both runs below start after it.
    const first = await runCli(['hook', 'claude-code'], { cwd: ws, env, input: event('Bash', { command: 'ls' }) });
    expect(first.code, first.stderr).toBe(0);
    cpSync(ws, snapshot, { recursive: true });
  });

  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('answers real Claude Code events byte for byte as the unbundled modules do', async () => {
    const inputs = [event('Bash', { command: 'cat .env', description: 'show env' }), event('Bash', { command: 'ls' }), event('Read', { file_path: join(ws, '.env') }), 'not json'];
    const bundled = await answers((args, input) => runCli(['hook', ...args], { cwd: ws, env, input }), inputs);
    const unbundled = await answers(runUnbundled, inputs);

    const [catEnv, ls, readEnv, garbage] = bundled.plain;
    expect(catEnv?.stdout).toContain('"permissionDecision":"deny"');
    expect(catEnv?.stdout).toContain('protected_path_read');
    expect(ls).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readEnv?.stdout).toContain('"permissionDecision":"deny"');
    expect(garbage?.code).toBe(2);
    expect(garbage?.stderr).toContain('hook_input_invalid');
    expect(bundled.json.map((answer) => (answer as { mode: unknown }).mode)).toEqual(['local', 'local', 'local', null]);

    expect(bundled.plain).toEqual(unbundled.plain);
    expect(bundled.json).toEqual(unbundled.json);
  });
});
