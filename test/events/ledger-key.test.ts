import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeLedgerFs, type LedgerFs } from '../../src/events/ledger-fs.js';
import { keysDirectoryOf, openLedgerWithKey, readGenesis } from '../../src/events/ledger-key.js';

/**
 * Two writers that find no ledger both make a key for a new one; whichever takes the lock second
 * finds the other's genesis. It must then write with that ledger's key, not fail on its own.
 */
describe('openLedgerWithKey', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-ledger-key-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('opens with the key of a ledger another writer created after it looked for one', async () => {
    const path = join(dir, '.svc', 'ledger.jsonl');
    let entered!: () => void;
    const inOpen = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // The first thing LedgerWriter.open does is make the ledger's directory: the late writer waits
    // there, past its look for a genesis and with its own key made, until the other is done.
    const heldFs: LedgerFs = {
      ...nodeLedgerFs,
      mkdir: async (directory) => {
        entered();
        await gate;
        return nodeLedgerFs.mkdir(directory);
      },
    };
    const late = openLedgerWithKey(path, { tenant: 'org:test', fs: heldFs });
    await inOpen;
    const first = await openLedgerWithKey(path, { tenant: 'org:test' });
    const origin = first.origin;
    await first.close();
    release();

    const second = await late;
    try {
      expect(second.origin).toBe(origin);
      expect((await readGenesis(path))?.data.origin).toBe(origin);
      // The key made for a ledger that was never created is gone; the ledger's own stays.
      expect(await readdir(keysDirectoryOf(path))).toHaveLength(1);
    } finally {
      await second.close();
    }
  });
});
