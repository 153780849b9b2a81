import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findMemoryMinimum, withMemoryMinimum } from '../../../src/hooks/shell/wasm-memory-minimum.js';

/**
 * web-tree-sitter's runtime declares a 32 MiB memory; the parser starts it with less
 * (grammar-wasm.ts). V8 itself is the judge here: it must accept the rewritten module, and link
 * it to a memory the original refuses.
 */
/** Node's global WebAssembly, which this project's TypeScript libraries (ES2023, no DOM) do not declare. */
interface WasmApi {
  Module: { new (bytes: Uint8Array): object; imports(module: object): unknown[]; exports(module: object): unknown[] };
  Instance: new (module: object, imports: object) => object;
  Memory: new (descriptor: { initial: number; maximum: number }) => object;
  LinkError: new () => Error;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

const require = createRequire(import.meta.url);
const RUNTIME_FILE = require.resolve('web-tree-sitter/tree-sitter.wasm');
const runtime = new Uint8Array(readFileSync(RUNTIME_FILE));

const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
const name = (text: string): number[] => [text.length, ...Buffer.from(text)];

/** A module importing only `env.memory` with `limits` (flags, then the LEB128 minimum and maximum bytes). */
function memoryImporter(limits: number[]): Uint8Array {
  const imports = [1, ...name('env'), ...name('memory'), 0x02, ...limits];
  return new Uint8Array([...HEADER, 0x02, imports.length, ...imports]);
}

/** (memory 512 32768), the minimum in two bytes and the maximum in three, as emscripten writes them. */
const EMSCRIPTEN_LIKE = memoryImporter([0x01, 0x80, 0x04, 0x80, 0x80, 0x02]);

function links(bytes: Uint8Array, pages: number): boolean {
  try {
    new wasm.Instance(new wasm.Module(bytes), { env: { memory: new wasm.Memory({ initial: pages, maximum: 32_768 }) } });
    return true;
  } catch (error) {
    if (error instanceof wasm.LinkError) return false;
    throw error;
  }
}

describe('withMemoryMinimum', () => {
  it('lowers the minimum so that V8 links the module to a smaller memory, changing nothing else', () => {
    expect(links(EMSCRIPTEN_LIKE, 64)).toBe(false);
    const lowered = withMemoryMinimum(EMSCRIPTEN_LIKE, 64);
    expect(lowered).toBeDefined();
    expect(links(lowered as Uint8Array, 64)).toBe(true);
    expect(links(lowered as Uint8Array, 63)).toBe(false);
    expect(findMemoryMinimum(lowered as Uint8Array)).toEqual({ offset: 24, length: 2, pages: 64 });
    expect([...(lowered as Uint8Array)].filter((byte, index) => byte !== EMSCRIPTEN_LIKE[index])).toHaveLength(2);
    // A minimum in one byte, and no maximum.
    const small = memoryImporter([0x00, 0x7f]);
    expect(links(small, 100)).toBe(false);
    expect(links(withMemoryMinimum(small, 100) as Uint8Array, 100)).toBe(true);
  });

  it("rewrites web-tree-sitter's own runtime into a module V8 compiles with the same imports and exports", () => {
    const declared = findMemoryMinimum(runtime);
    expect(declared?.pages).toBe(512);
    const lowered = withMemoryMinimum(runtime, 64) as Uint8Array;
    expect(findMemoryMinimum(lowered)?.pages).toBe(64);
    const changed = [...lowered].flatMap((byte, index) => (byte === runtime[index] ? [] : [index]));
    expect(changed.every((index) => index >= (declared?.offset ?? 0) && index < (declared?.offset ?? 0) + (declared?.length ?? 0))).toBe(true);
    const [before, after] = [new wasm.Module(runtime), new wasm.Module(lowered)];
    expect(wasm.Module.imports(after)).toEqual(wasm.Module.imports(before));
    expect(wasm.Module.exports(after)).toEqual(wasm.Module.exports(before));
  });

  it('leaves alone what it cannot or need not lower', () => {
    expect(withMemoryMinimum(EMSCRIPTEN_LIKE, 512)).toBeUndefined();
    expect(withMemoryMinimum(EMSCRIPTEN_LIKE, 600)).toBeUndefined();
    // A shared memory's limits (flags 3).
    expect(withMemoryMinimum(memoryImporter([0x03, 0x80, 0x04, 0x80, 0x80, 0x02]), 64)).toBeUndefined();
    expect(withMemoryMinimum(new Uint8Array(HEADER), 64)).toBeUndefined();
    expect(withMemoryMinimum(new TextEncoder().encode('not wasm at all'), 64)).toBeUndefined();
    expect(withMemoryMinimum(EMSCRIPTEN_LIKE.subarray(0, 21), 64)).toBeUndefined();
  });

  it('never throws on damaged or arbitrary bytes, and never changes their length', () => {
    const damaged = fc
      .tuple(fc.nat(EMSCRIPTEN_LIKE.length - 1), fc.integer({ min: 0, max: 255 }), fc.nat(EMSCRIPTEN_LIKE.length))
      .map(([at, byte, keep]) => {
        const copy = Uint8Array.from(EMSCRIPTEN_LIKE);
        copy[at] = byte;
        return copy.subarray(0, keep);
      });
    fc.assert(
      fc.property(fc.oneof(damaged, fc.uint8Array({ maxLength: 64 })), fc.integer({ min: 1, max: 1024 }), (bytes, pages) => {
        const lowered = withMemoryMinimum(bytes, pages);
        if (lowered !== undefined) {
          expect(lowered.length).toBe(bytes.length);
          expect(findMemoryMinimum(lowered)?.pages).toBe(pages);
        }
      }),
      { numRuns: 5_000 },
    );
  });

  it('leaves a memory that grows past its start: web-tree-sitter started with two pages loads the bash grammar and parses', () => {
    const script = [
      `const { Parser, Language } = await import(${JSON.stringify(pathToFileURL(require.resolve('web-tree-sitter')).href)});`,
      `const { withMemoryMinimum } = await import(${JSON.stringify(new URL('../../../dist/src/hooks/shell/wasm-memory-minimum.js', import.meta.url).href)});`,
      "const { readFileSync } = await import('node:fs');",
      `const runtime = withMemoryMinimum(readFileSync(${JSON.stringify(RUNTIME_FILE)}), 2);`,
      `await Parser.init({ wasmBinary: runtime, INITIAL_MEMORY: 2 * 65536, locateFile: () => ${JSON.stringify(RUNTIME_FILE)} });`,
      `const parser = new Parser(); parser.setLanguage(await Language.load(readFileSync(${JSON.stringify(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'))})));`,
      "const tree = parser.parse('cat .env | grep KEY > out.txt');",
      'console.log(tree.rootNode.toString());',
    ].join('\n');
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(child.stdout.trim()).toBe('(program (redirected_statement body: (pipeline (command name: (command_name (word)) argument: (word)) (command name: (command_name (word)) argument: (word))) redirect: (file_redirect destination: (word))))');
  });
});
