import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type * as fsPromises from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The hook bundles' `node:fs/promises` (src/hooks/synchronous-fs-promises.cts, put in place by
 * scripts/bundle-hook.ts): each call done synchronously, its result or error a settled promise,
 * every open non-blocking so that a FIFO never holds the hook past its timeout.
 */
const SHIM = new URL('../../dist/src/hooks/synchronous-fs-promises.cjs', import.meta.url).pathname;
const shim = createRequire(import.meta.url)(SHIM) as typeof fsPromises;

describe('the hook engine’s synchronous fs/promises', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sync-fsp-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads, writes and describes files as fs/promises does', async () => {
    const file = join(dir, 'a.txt');
    await shim.writeFile(file, 'hello\n', { mode: 0o600 });
    expect(readFileSync(file, 'utf8')).toBe('hello\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await shim.readFile(file, 'utf8')).toBe('hello\n');
    expect(await shim.readFile(file)).toEqual(Buffer.from('hello\n'));
    await expect(shim.writeFile(file, 'again', { flag: 'wx' })).rejects.toMatchObject({ code: 'EEXIST' });

    const handle = await shim.open(file, 'r');
    const buffer = Buffer.alloc(3);
    expect(await handle.read(buffer, 0, 3, 1)).toMatchObject({ bytesRead: 3 });
    expect(buffer.toString()).toBe('ell');
    expect((await handle.stat()).size).toBe(6);
    expect(await handle.readFile({ encoding: 'utf8' })).toBe('hello\n');
    await handle.close();

    const created = await shim.mkdir(join(dir, 'x', 'y'), { recursive: true });
    expect(created).toBe(join(dir, 'x'));
    await shim.rename(file, join(dir, 'x', 'b.txt'));
    expect((await shim.lstat(join(dir, 'x', 'b.txt'))).isFile()).toBe(true);
    await shim.utimes(join(dir, 'x', 'b.txt'), 0, 0);
    expect((await shim.stat(join(dir, 'x', 'b.txt'))).mtimeMs).toBe(0);
    await shim.unlink(join(dir, 'x', 'b.txt'));
    await shim.rm(join(dir, 'x'), { recursive: true });
    expect(await shim.readdir(dir)).toEqual([]);
  });

  it('hands errors back as rejected promises, never as throws', async () => {
    const missing = join(dir, 'missing');
    const calls = [() => shim.readFile(missing), () => shim.open(missing, 'r'), () => shim.stat(missing), () => shim.unlink(missing), () => shim.rename(missing, join(dir, 'other'))];
    for (const call of calls) {
      let promise: Promise<unknown> | undefined;
      expect(() => (promise = call())).not.toThrow();
      await expect(promise).rejects.toMatchObject({ code: 'ENOENT' });
    }
  });

  it('does not wait on a FIFO: reading one without a writer ends at once, writing one without a reader fails', () => {
    const fifo = join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // In a child with a time limit: a blocking open would hang it, not this test process.
    const script = `const s = require(${JSON.stringify(SHIM)});
      (async () => {
        const read = await s.readFile(${JSON.stringify(fifo)}, 'utf8').then((text) => 'read ' + JSON.stringify(text), (error) => 'read ' + error.code);
        const write = await s.writeFile(${JSON.stringify(fifo)}, 'x').then(() => 'write ok', (error) => 'write ' + error.code);
        console.log(read, write);
      })();`;
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 10_000 });
    expect(child.signal).toBeNull();
    expect(child.stdout.trim()).toBe('read "" write ENXIO');
  });

  it('keeps the rest of fs/promises', () => {
    writeFileSync(join(dir, 'kept'), '');
    expect(typeof shim.readdir).toBe('function');
    expect(typeof shim.realpath).toBe('function');
    expect(shim.constants.O_NONBLOCK).toBeGreaterThan(0);
  });
});
