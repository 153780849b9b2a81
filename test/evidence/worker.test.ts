import { existsSync } from 'node:fs';
import { getPriority } from 'node:os';
import { describe, expect, it } from 'vitest';
import { runOnWorker } from '../../src/evidence/worker.js';

// The compiled worker (npm test builds first): runOnWorker runs compiled scripts only.
const script = new URL('../../dist/test/children/allocating-worker.js', import.meta.url);

describe('runOnWorker', () => {
  it('has the compiled worker script to test with', () => {
    expect(existsSync(script)).toBe(true);
  });

  it('returns what the worker answers', async () => {
    expect(await runOnWorker(script, { megabytes: 2 }, { maxOldGenerationSizeMb: 64 }, async () => -1)).toBe(32);
  });

  it('runs the task in this thread when the worker outgrows its heap cap, instead of failing', async () => {
    expect(await runOnWorker(script, { megabytes: 256 }, { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 }, async () => -1)).toBe(-1);
  });

  it('runs the task in this thread when the compiled script is absent', async () => {
    expect(await runOnWorker(new URL('./no-such-worker.js', import.meta.url), {}, {}, async () => 'here')).toBe('here');
  });

  it('lowers the nice value of the worker that yields to the slower pass, and only of that thread', async () => {
    const before = getPriority(0);
    const yielding = new URL('../../dist/test/children/yielding-worker.js', import.meta.url);
    const workerNice = await runOnWorker(yielding, {}, {}, async () => Number.NaN);
    // Linux keeps a nice value per thread; elsewhere the worker leaves its priority alone.
    expect(workerNice).toBe(process.platform === 'linux' ? Math.min(19, before + 5) : before);
    expect(getPriority(0)).toBe(before);
  });
});
