import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli, runScript, type CliResult } from '../support/cli.js';

/**
 * `svc hook` runs from esbuild bundles (scripts/bundle-hook.ts, built by `npm run build`), both
 * CommonJS so that the `svc` executable (svc.cjs) never starts Node's ES module loader for a hook:
 * `hook-entry.cjs`, which reads the event and forwards it to a proxy, and `engine.cjs`, loaded
 * with the V8 code cache the build made for it. The bundles must hold every dependency, keep the
 * engine out of the proxy-forwarding path, and answer exactly as the modules tsc emitted answer;
 * the cache must be used when it fits and ignored when it does not.
 */
const BUNDLE = fileURLToPath(new URL('../../dist/src/cli/hook-bundle/', import.meta.url));
const UNBUNDLED = fileURLToPath(new URL('../../dist/test/children/hook-unbundled.js', import.meta.url));
const ENGINE = join(BUNDLE, 'engine.cjs');
/** What the entry leaves to the modules tsc emitted: the engine without engine.cjs, and the runtimes' protocols for a proxy's refusal. */
const MODULES_OUTSIDE_ENTRY = ['../../hooks/hook-process-engine.js', '../../hooks/runtimes/index.js'];

const bundleText = (name: string): string => readFileSync(join(BUNDLE, name), 'utf8');
/** The modules a bundle holds, as its source map names them (relative to the bundle's folder). */
const bundledSources = (name: string): string[] => (JSON.parse(readFileSync(join(BUNDLE, `${name}.map`), 'utf8')) as { sources: string[] }).sources;

/** Specifiers of static imports and re-exports, dynamic imports and require calls in bundled code. */
function specifiers(code: string): { static: string[]; all: string[] } {
  const staticOnes = [...code.matchAll(/^\s*(?:import|export)\b[^;"']*?\bfrom\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']/gm)].map((match) => (match[1] ?? match[2]) as string);
  const dynamic = [...code.matchAll(/\b(?:import|require|__require)\(\s*["']([^"']+)["']\s*\)/g)].map((match) => match[1] as string);
  return { static: staticOnes, all: [...staticOnes, ...dynamic] };
}

/** Loads an engine bundle in a fresh node (with `nodeArgs`) as `svc hook` does, and says what became of its code cache. */
function cacheVerdict(engineFile: string, nodeArgs: string[] = []): string {
  const hookEngine = pathToFileURL(join(dirname(dirname(engineFile)), 'hook-engine.js')).href;
  const script = `const { loadHookEngine } = await import(${JSON.stringify(hookEngine)}); const { engine, bundle } = await loadHookEngine(${JSON.stringify(engineFile)}); console.log(typeof engine.runHook, bundle?.cache);`;
  const child = spawnSync(process.execPath, [...nodeArgs, '--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(child.status, child.stderr).toBe(0);
  return child.stdout.trim();
}

/** A copy of dist/src (source maps left out) in a new temporary directory, to break without breaking the other tests' bundle. */
function copyOfDist(prefix: string): string {
  const copy = mkdtempSync(join(tmpdir(), prefix));
  cpSync(fileURLToPath(new URL('../../dist/src', import.meta.url)), join(copy, 'dist/src'), { recursive: true, filter: (source) => !source.endsWith('.map') });
  writeFileSync(join(copy, 'package.json'), '{ "type": "module" }\n');
  symlinkSync(fileURLToPath(new URL('../../node_modules', import.meta.url)), join(copy, 'node_modules'), 'dir');
  return copy;
}

describe('the hook bundles', () => {
  it('hold every dependency: the entry requires only Node builtins and the two modules it leaves out; the engine requires only builtins', () => {
    const builtins = new Set(builtinModules);
    const isBuiltin = (specifier: string): boolean => specifier.startsWith('node:') || builtins.has(specifier);
    expect(readdirSync(BUNDLE).filter((name) => /\.[cm]?js$/.test(name)).sort()).toEqual(['engine.cjs', 'hook-entry.cjs']);
    const strays: string[] = [];
    const entrySpecifiers = specifiers(bundleText('hook-entry.cjs')).all;
    for (const specifier of entrySpecifiers) if (!isBuiltin(specifier) && !MODULES_OUTSIDE_ENTRY.includes(specifier)) strays.push(`hook-entry.cjs: ${specifier}`);
    for (const specifier of specifiers(bundleText('engine.cjs')).all) if (!isBuiltin(specifier)) strays.push(`engine.cjs: ${specifier}`);
    expect(strays).toEqual([]);
    for (const module of MODULES_OUTSIDE_ENTRY) {
      expect(entrySpecifiers).toContain(module);
      expect(existsSync(join(BUNDLE, module)), `${module} resolves to the modules tsc emitted`).toBe(true);
    }
  });

  it('carry the WebAssembly the engine loads, byte for byte the installed packages\' files', () => {
    const require = createRequire(import.meta.url);
    for (const wasm of ['web-tree-sitter/tree-sitter.wasm', 'tree-sitter-bash/tree-sitter-bash.wasm']) {
      expect(readFileSync(join(BUNDLE, wasm.slice(wasm.indexOf('/') + 1))).equals(readFileSync(require.resolve(wasm))), wasm).toBe(true);
    }
  });

  it('keep the engine and its dependencies out of what forwarding to a proxy loads', () => {
    // Each bundle's source map lists the modules it holds (the engine's code has no comments left to name them).
    const engineModules = [/(^|\/)src\/hooks\/run-hook\.ts$/, /node_modules\/zod\//, /node_modules\/yaml\//, /node_modules\/web-tree-sitter\//];
    const holds = (sources: readonly string[], module: RegExp): boolean => sources.some((source) => module.test(source));
    for (const module of engineModules) expect(holds(bundledSources('engine.cjs'), module), String(module)).toBe(true);
    // proper-lockfile's dependencies are replaced by what a short process needs (scripts/bundle-hook.ts).
    for (const replaced of [/node_modules\/signal-exit\//, /node_modules\/graceful-fs\//]) expect(holds(bundledSources('engine.cjs'), replaced), String(replaced)).toBe(false);
    // ...and its fs/promises, like the entry's, is the synchronous one (src/hooks/synchronous-fs-promises.cts).
    expect(holds(bundledSources('engine.cjs'), /src\/hooks\/synchronous-fs-promises\.cts$/)).toBe(true);
    for (const bundle of ['engine.cjs', 'hook-entry.cjs']) expect(specifiers(bundleText(bundle)).all.filter((specifier) => /^(node:)?fs\/promises$/.test(specifier)), bundle).toEqual([]);
    // What `svc hook` parses before it knows whether a proxy answers: the entry (what it runs is checked below, on a forwarded call).
    const forwarding = bundledSources('hook-entry.cjs');
    expect(forwarding).toContain('../../../../src/cli/hook-entry.ts');
    for (const module of engineModules) expect(holds(forwarding, module), String(module)).toBe(false);
    expect(statSync(join(BUNDLE, 'hook-entry.cjs')).size).toBeLessThan(statSync(ENGINE).size / 20);
  });

  it('load the engine with the code cache the build made, and compile without it when V8 refuses it', () => {
    expect(cacheVerdict(ENGINE)).toBe('function accepted');
    // V8 flags are part of what a cache must match: this one is refused, and the engine still loads.
    expect(cacheVerdict(ENGINE, ['--no-opt'])).toBe('function rejected');
  });

  it('fall back to the modules only where a bundle is missing, ignore a code cache that is not for the bundle as it is, and fail on a broken bundle', () => {
    const copy = copyOfDist('svc-hook-bundle-copy-');
    try {
      // Unreadable input reaches the engine (no svc.yml, so no proxy to ask), which refuses it.
      // Through the `svc` executable, and through main.js, which hooks set up before svc.cjs existed still start.
      const hook = (executable: string): { status: number | null; stderr: string } => spawnSync(process.execPath, [join(copy, 'dist/src/cli', executable), 'hook', 'claude-code'], { cwd: copy, input: 'not json', encoding: 'utf8' });
      const refusesInput = (): void => {
        for (const executable of ['svc.cjs', 'main.js']) {
          const run = hook(executable);
          expect(run.status, `${executable}: ${run.stderr}`).toBe(2);
          expect(run.stderr, executable).toContain('[hook_input_invalid]');
        }
      };
      const failsWith = (missing: string): void => {
        for (const executable of ['svc.cjs', 'main.js']) {
          const run = hook(executable);
          expect(run.status, executable).toBe(2);
          expect(run.stderr, executable).toMatch(new RegExp(`^svc: .*${missing.replaceAll('.', '\\.')}`));
        }
      };
      const bundle = join(copy, 'dist/src/cli/hook-bundle');
      const engine = join(bundle, 'engine.cjs');
      const cache = `${engine}.v8cache`;
      expect(cacheVerdict(engine)).toBe('function accepted');
      refusesInput();

      // A cache whose bytes were damaged, or that was made for other source, is not handed to V8.
      const cacheBytes = readFileSync(cache);
      const damaged = Buffer.from(cacheBytes);
      damaged[damaged.length >> 1] = (damaged[damaged.length >> 1] as number) ^ 0xff;
      writeFileSync(cache, damaged);
      expect(cacheVerdict(engine)).toBe('function absent');
      refusesInput();
      writeFileSync(cache, cacheBytes);
      writeFileSync(engine, `${readFileSync(engine, 'utf8')}\n// edited after the build\n`);
      expect(cacheVerdict(engine)).toBe('function absent');
      refusesInput();

      writeFileSync(engine, `require('./module-that-is-not-there.cjs');\n${readFileSync(engine, 'utf8')}`);
      failsWith('module-that-is-not-there.cjs');

      rmSync(engine);
      expect(cacheVerdict(engine)).toBe('function undefined');
      refusesInput();

      const entry = join(bundle, 'hook-entry.cjs');
      writeFileSync(entry, `require('./module-that-is-not-there.cjs');\n${readFileSync(entry, 'utf8')}`);
      failsWith('module-that-is-not-there.cjs');

      rmSync(bundle, { recursive: true });
      refusesInput();
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

  /** Runs the `svc` executable's hook with Node's list of the builtins it loaded written at exit. */
  function runRecordingBuiltins(input: string): Promise<CliResult & { builtins: string[] }> {
    const preload = join(root, 'record-builtins.cjs');
    const record = join(root, 'builtins.json');
    writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify(process.moduleLoadList)));\n`);
    return new Promise((resolve, reject) => {
      // Not spawnSync: the proxy a test runs in this process must be able to answer meanwhile.
      const child = spawn(process.execPath, ['--require', preload, CLI, 'hook', 'claude-code'], { cwd: ws, env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr, builtins: JSON.parse(readFileSync(record, 'utf8')) as string[] }));
      child.stdin.end(input);
    });
  }

  /** What the ES module loader loads to run a first ES module: resolution, translation, module jobs (a CommonJS process has a few of its helpers too). */
  const esModuleLoader = (builtins: readonly string[]): string[] => builtins.filter((name) => /^NativeModule internal\/modules\/esm\/(resolve|load|translators|module_job|module_map)$/.test(name));

  it('decides a shell command without the ES module loader, without perf_hooks, which the `performance` global would load (monotonic-clock.ts), and without signal-exit, which loads node:assert (exit-only-signal-exit.cts)', async () => {
    rmSync(ws, { recursive: true, force: true });
    cpSync(snapshot, ws, { recursive: true });
    const run = await runRecordingBuiltins(event('Bash', { command: 'cat .env' }));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('"permissionDecision":"deny"');
    expect(run.builtins).toContain('NativeModule vm');
    expect(run.builtins).not.toContain('NativeModule perf_hooks');
    expect(run.builtins).not.toContain('NativeModule assert');
    // Both bundles' fs/promises is the synchronous one, so Node's is never loaded (synchronous-fs-promises.cts).
    expect(run.builtins).not.toContain('NativeModule internal/fs/promises');
    expect(esModuleLoader(run.builtins)).toEqual([]);
  });

  it("forwards a call to the workspace's proxy without loading the engine (nor node:vm, which loading it needs) or the ES module loader", async () => {
    rmSync(ws, { recursive: true, force: true });
    cpSync(snapshot, ws, { recursive: true });
    const answer = { output: { stdout: '{"from":"the proxy"}\n', stderr: '', exitCode: 0 } };
    const requests: string[] = [];
    const proxy = createServer((request, response) => {
      requests.push(`${request.method} ${request.url}`);
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = proxy.address() as AddressInfo;
      writeFileSync(join(ws, '.svc/proxy.json'), JSON.stringify({ url: `http://127.0.0.1:${port}`, pid: process.pid, config: join(ws, 'svc.yml') }));
      const run = await runRecordingBuiltins(event('Bash', { command: 'cat .env' }));
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe(answer.output.stdout);
      expect(requests).toEqual(['POST /hooks/claude-code']);
      expect(run.builtins).toContain('NativeModule http');
      expect(run.builtins).not.toContain('NativeModule vm');
      expect(esModuleLoader(run.builtins)).toEqual([]);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it("denies a shell command, with the reason and nothing else on its output, when the parser's WebAssembly runtime cannot be loaded; a plain command line needs none", () => {
    const copy = copyOfDist('svc-hook-bundle-broken-wasm-');
    try {
      const runtime = join(copy, 'dist/src/cli/hook-bundle/tree-sitter.wasm');
      writeFileSync(runtime, readFileSync(runtime).subarray(0, 1000));
      const hook = (command: string, executable: string): { status: number | null; stdout: string; stderr: string } => {
        rmSync(ws, { recursive: true, force: true });
        cpSync(snapshot, ws, { recursive: true });
        return spawnSync(process.execPath, [join(copy, 'dist/src/cli', executable), 'hook', 'claude-code'], { cwd: ws, env, input: event('Bash', { command }), encoding: 'utf8' });
      };
      for (const executable of ['main.js', 'svc.cjs']) {
        const run = hook('ls | head -n 3', executable);
        // Before, an unhandled rejection inside web-tree-sitter ended the process: exit 1, no answer.
        expect(run.status, run.stderr.slice(-400)).toBe(0);
        expect(run.stderr.length, run.stderr.slice(-400)).toBe(0);
        const output = JSON.parse(run.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
        expect(output.hookSpecificOutput.permissionDecision).toBe('deny');
        expect(output.hookSpecificOutput.permissionDecisionReason).toMatch(/^svc could not decide this call, so it is denied to be safe: .*WebAssembly/);
        // A plain line is analyzed without the grammar, so without loading any WebAssembly: no opinion, as with a working parser.
        const plain = hook('ls -la src', executable);
        expect({ status: plain.status, stdout: plain.stdout, stderr: plain.stderr }).toEqual({ status: 0, stdout: '', stderr: '' });
        // ... but one that runs a script only the grammar reads still needs it.
        writeFileSync(join(ws, 'build.sh'), 'ls | head -n 3\n');
        const script = spawnSync(process.execPath, [join(copy, 'dist/src/cli', executable), 'hook', 'claude-code'], { cwd: ws, env, input: event('Bash', { command: 'bash build.sh' }), encoding: 'utf8' });
        expect(script.stdout).toMatch(/"permissionDecision":"deny".*WebAssembly/);
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
