import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { appendFile, open, readFile, readdir, rename, rm, stat, symlink, truncate, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSigningKey } from '../../src/actionpass/keys.js';
import { canonicalJson } from '../../src/events/canonical.js';
import { scanLedger } from '../../src/events/ledger-scan.js';
import { nodeLedgerFs, type LedgerFs } from '../../src/events/ledger-fs.js';
import { appendSampleFlows, chatEvent, openLedger, tempDir } from '../support/ledger.js';

async function records(path: string) {
  return (await readFile(path, 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line) as { seq: number; type: string; data: Record<string, unknown> });
}

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected`), { code });
}

/**
 * The real file system with faults injected by the test, keeping count of the descriptors it
 * opened and closed, by path: a descriptor closed twice could close another file that reused its
 * number, and one never closed leaks.
 */
function faultyFs(inject: (fs: LedgerFs & { pathOf(fd: number): string | undefined }) => Partial<LedgerFs>) {
  const open = new Map<number, string>();
  const doubleCloses: number[] = [];
  const base: LedgerFs & { pathOf(fd: number): string | undefined } = {
    ...nodeLedgerFs,
    pathOf: (fd) => open.get(fd),
    async open(path, flags, mode) {
      const fd = await nodeLedgerFs.open(path, flags, mode);
      open.set(fd, path);
      return fd;
    },
    async close(fd) {
      if (!open.delete(fd)) doubleCloses.push(fd);
      return nodeLedgerFs.close(fd);
    },
  };
  return { fs: { ...base, ...inject(base) } as LedgerFs, openPaths: () => [...open.values()], doubleCloses };
}

/** Settles with `promise`, or fails after `ms` instead of hanging the suite when `promise` never settles. */
async function within<T>(ms: number, promise: Promise<T>, onTimeout: () => Promise<void>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      void onTimeout().finally(() => reject(new Error(`did not settle within ${ms} ms`)));
    }, ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('ledger writer', () => {
  it('given no file, when opened, then writes a durable genesis and appends chained records', async () => {
    const path = join(await tempDir(), '.svc', 'ledger.jsonl');
    const writer = await openLedger(path);
    const receipt = await writer.append(chatEvent('act_1'));
    expect(receipt.seq).toBe(1);
    expect(receipt.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    await writer.close();
    const lines = await records(path);
    expect(lines.map((line) => line.type)).toEqual(['ledger.genesis', 'action.received', 'ledger.checkpoint']);
    const scan = await scanLedger(path);
    expect(scan.kind).toBe('valid');
    const sidecar = await readFile(`${path}.checkpoint`, 'utf8');
    expect(sidecar.split('\n')[1]).toBe('3');
    expect((lines[2]?.data as { note: string }).note.split('\n')[1]).toBe('2');
  });

  it('given a closed ledger, when reopened, then it continues the chain and a clean reopen appends nothing', async () => {
    const path = join(await tempDir(), 'ledger.jsonl');
    const first = await openLedger(path);
    await appendSampleFlows(first, 2);
    await first.close();
    const before = await readFile(path);
    const second = await openLedger(path);
    await second.close();
    expect(await readFile(path)).toEqual(before);
    const third = await openLedger(path);
    const receipt = await third.append(chatEvent('act_more'));
    await third.close();
    expect(receipt.seq).toBe((await records(path)).length - 2);
    expect((await scanLedger(path)).kind).toBe('valid');
  });

  it('writes in-band checkpoints every N records, each covering the records before it', async () => {
    const path = join(await tempDir(), 'ledger.jsonl');
    const writer = await openLedger(path, { checkpointEveryRecords: 5 });
    await appendSampleFlows(writer, 3);
    await writer.close();
    const lines = await records(path);
    const checkpoints = lines.filter((line) => line.type === 'ledger.checkpoint');
    expect(checkpoints.length).toBeGreaterThan(5);
    for (const checkpoint of checkpoints) expect(checkpoint.data.size).toBe(checkpoint.seq);
    expect((await scanLedger(path)).kind).toBe('valid');
  });

  it('refuses a second writer while the first holds the lock', async () => {
    const path = join(await tempDir(), 'ledger.jsonl');
    const writer = await openLedger(path);
    await expect(openLedger(path)).rejects.toMatchObject({ code: 'ledger_locked' });
    await writer.close();
    const again = await openLedger(path);
    await again.close();
  });

  it('refuses a key that the genesis does not list', async () => {
    const path = join(await tempDir(), 'ledger.jsonl');
    await (await openLedger(path)).close();
    await expect(openLedger(path, { key: generateSigningKey('svc.test/other') })).rejects.toMatchObject({ code: 'key_mismatch' });
  });

  it('rejects an invalid event without writing anything', async () => {
    const path = join(await tempDir(), 'ledger.jsonl');
    const writer = await openLedger(path);
    const size = (await stat(path)).size;
    const bad = { type: 'policy.decided', stream: 'action:act_1', data: { actionId: 'act_1', decision: 'maybe', reasons: [], ruleId: 'r', policyHash: 'sha256:00' } };
    await expect(writer.append(bad as never)).rejects.toMatchObject({ code: 'event_invalid' });
    expect((await stat(path)).size).toBe(size);
    await writer.close();
  });

  it('given a torn tail, when opened, then quarantines it, truncates and records ledger.recovered', async () => {
    const dir = await tempDir();
    const path = join(dir, 'ledger.jsonl');
    const writer = await openLedger(path);
    await appendSampleFlows(writer, 1);
    await writer.close();
    const validSize = (await stat(path)).size;
    await appendFile(path, '{"data":{"actionId":"act_x"');
    const recovered = await openLedger(path);
    await recovered.close();
    const lines = await records(path);
    const recovery = lines.find((line) => line.type === 'ledger.recovered');
    expect(recovery?.data).toMatchObject({ truncatedBytes: 27, reason: 'last line has no terminating newline' });
    const quarantined = await readdir(join(dir, 'quarantine'));
    expect(quarantined).toHaveLength(1);
    expect(await readFile(join(dir, 'quarantine', quarantined[0] as string), 'utf8')).toBe('{"data":{"actionId":"act_x"');
    expect(recovery?.seq).toBeGreaterThan(0);
    expect((await stat(path)).size).toBeGreaterThan(validSize);
  });

  it('given a torn tail and a slow disk, timed checkpoints do not start before recovery is done', async () => {
    const path = join(await tempDir(), 'ledger.jsonl');
    const writer = await openLedger(path);
    await appendSampleFlows(writer, 1);
    await writer.close();
    // As after a crash: records newer than the last checkpoint (drop the final one and its sidecar), then a torn line.
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    await writeFile(path, `${lines.slice(0, -1).join('\n')}\n{"data":`);
    await rm(`${path}.checkpoint`);
    const slow: LedgerFs = {
      ...nodeLedgerFs,
      async fsyncDirectory(dir) {
        await new Promise((resolve) => setTimeout(resolve, 60));
        return nodeLedgerFs.fsyncDirectory(dir);
      },
    };
    const recovered = await openLedger(path, { fs: slow, checkpointEveryMs: 10 });
    expect(recovered.poisoned).toBeUndefined();
    await recovered.append(chatEvent('act_after_recovery'));
    await recovered.close();
    expect((await records(path)).some((line) => line.type === 'ledger.recovered')).toBe(true);
    expect((await scanLedger(path)).kind).toBe('valid');
  });

  it('given a zero-filled tail, when opened, then recovers it as torn', async () => {
    const path = join(await tempDir(), 'ledger.jsonl');
    const writer = await openLedger(path);
    await appendSampleFlows(writer, 1);
    await writer.close();
    await appendFile(path, Buffer.alloc(4096));
    const recovered = await openLedger(path);
    await recovered.close();
    expect((await records(path)).some((line) => line.type === 'ledger.recovered')).toBe(true);
    expect((await scanLedger(path)).kind).toBe('valid');
  });

  it('given only a torn genesis, when opened, then quarantines it and starts the ledger with ledger.recovered', async () => {
    const dir = await tempDir();
    const path = join(dir, 'ledger.jsonl');
    await writeFile(path, '{"data":{"format":"svc.led');
    const writer = await openLedger(path);
    await writer.close();
    const lines = await records(path);
    expect(lines.map((line) => line.type)).toEqual(['ledger.genesis', 'ledger.recovered', 'ledger.checkpoint']);
    expect(await readdir(join(dir, 'quarantine'))).toHaveLength(1);
  });

  it('appendBatch is all or nothing: one oversized event rejects the whole batch and writes nothing', async () => {
    const path = join(await tempDir(), 'ledger.jsonl');
    const writer = await openLedger(path);
    const size = (await stat(path)).size;
    const huge = chatEvent('act_huge') as { data: { action: { capability: { payload: Record<string, unknown> } } } };
    huge.data.action.capability.payload = { text: 'x'.repeat(1 << 20) };
    await expect(writer.appendBatch([chatEvent('act_fine'), huge as never])).rejects.toMatchObject({ code: 'event_too_large' });
    expect((await stat(path)).size).toBe(size);
    expect(writer.size).toBe(1);
    await writer.close();
  });

  it("counts a record's size in UTF-8 bytes: a long ASCII text fits, the same length in three-byte characters does not", async () => {
    const path = join(await tempDir(), 'ledger.jsonl');
    const writer = await openLedger(path);
    const withText = (actionId: string, text: string) => {
      const event = chatEvent(actionId) as { data: { action: { capability: { payload: Record<string, unknown> } } } };
      event.data.action.capability.payload = { text };
      return event as never;
    };
    // 400,000 characters: three times that is past the 1 MiB limit, so the bytes are counted exactly.
    await expect(writer.appendBatch([withText('act_ascii', 'x'.repeat(400_000))])).resolves.toHaveLength(1);
    await expect(writer.appendBatch([withText('act_euro', '€'.repeat(400_000))])).rejects.toMatchObject({ code: 'event_too_large' });
    expect(writer.size).toBe(2);
    await writer.close();
  });

  it('refuses a defect before the last line and says where', async () => {
    const path = join(await tempDir(), 'ledger.jsonl');
    const writer = await openLedger(path);
    await appendSampleFlows(writer, 1);
    await writer.close();
    const text = await readFile(path, 'utf8');
    const lines = text.split('\n');
    const tampered = (lines[1] as string).replace('agent:deployer', 'agent:intruder');
    expect(tampered).not.toBe(lines[1]);
    lines[1] = tampered;
    await writeFile(path, lines.join('\n'));
    const offset = Buffer.byteLength(lines.slice(0, 2).join('\n')) + 1;
    await expect(openLedger(path)).rejects.toMatchObject({ code: 'ledger_corrupt', message: expect.stringContaining(`chain_broken at seq 2, byte offset ${offset}`) });
  });

  it('refuses a ledger shorter than its checkpoint sidecar', async () => {
    const path = join(await tempDir(), 'ledger.jsonl');
    const writer = await openLedger(path);
    await appendSampleFlows(writer, 1);
    await writer.close();
    const text = await readFile(path, 'utf8');
    const lines = text.split('\n');
    await truncate(path, Buffer.byteLength(lines.slice(0, 5).join('\n')) + 1);
    await expect(openLedger(path)).rejects.toMatchObject({ code: 'ledger_corrupt', message: expect.stringContaining('root_mismatch') });
  });

  for (const errno of ['EIO', 'ENOSPC'] as const) {
    it(`given ${errno} from fdatasync, then the writer is poisoned and a reopen recovers`, async () => {
      const path = join(await tempDir(), 'ledger.jsonl');
      let failNext = false;
      const faulty: LedgerFs = {
        ...nodeLedgerFs,
        async fdatasync(fd) {
          if (failNext) throw Object.assign(new Error(`${errno}: injected`), { code: errno });
          return nodeLedgerFs.fdatasync(fd);
        },
      };
      const writer = await openLedger(path, { fs: faulty });
      const acknowledged = await writer.append(chatEvent('act_ok'));
      failNext = true;
      await expect(writer.append(chatEvent('act_lost'))).rejects.toMatchObject({ code: 'ledger_unavailable' });
      failNext = false;
      await expect(writer.append(chatEvent('act_after'))).rejects.toMatchObject({ code: 'ledger_unavailable' });
      await writer.close();
      const reopened = await openLedger(path);
      await reopened.append(chatEvent('act_again'));
      await reopened.close();
      const lines = await records(path);
      expect(lines[acknowledged.seq]?.data.actionId).toBe('act_ok');
      expect((await scanLedger(path)).kind).toBe('valid');
    });
  }

  it('writes the data text of a serialized event as given when prechecked, and serializes the event itself otherwise', async () => {
    const path = join(await tempDir(), 'ledger.jsonl');
    const writer = await openLedger(path);
    const event = chatEvent('act_text');
    const exact = canonicalJson(event.data);
    const [given] = await writer.appendBatch([{ event, dataJson: exact }], { prechecked: true });
    const [ignored] = await writer.appendBatch([{ event, dataJson: '{"not":"this"}' }]);
    await writer.close();
    const lines = (await readFile(path, 'utf8')).split('\n');
    expect(lines[given?.seq ?? -1]).toContain(`{"data":${exact},`);
    expect(lines[ignored?.seq ?? -1]).not.toContain('"not"');
    expect((await scanLedger(path)).kind).toBe('valid');
  });

  it('given two commits in flight, when the first sync fails after the second succeeded, then both are rejected', async () => {
    const path = join(await tempDir(), 'ledger.jsonl');
    let syncs = 0;
    const faulty: LedgerFs = {
      ...nodeLedgerFs,
      async fdatasync(fd) {
        syncs += 1;
        // Sync 1 is the genesis. Sync 2 (the first batch of 32) fails late; sync 3 (the second batch) succeeds at once.
        if (syncs === 2) {
          await new Promise((resolve) => setTimeout(resolve, 30));
          throw Object.assign(new Error('EIO: injected'), { code: 'EIO' });
        }
        return nodeLedgerFs.fdatasync(fd);
      },
    };
    const writer = await openLedger(path, { fs: faulty });
    const outcomes = await Promise.allSettled(Array.from({ length: 64 }, (_unused, index) => writer.append(chatEvent(`act_${index}`))));
    expect(syncs).toBeGreaterThanOrEqual(3);
    expect(outcomes.every((outcome) => outcome.status === 'rejected')).toBe(true);
    await writer.close();
    const reopened = await openLedger(path);
    await reopened.close();
    expect((await scanLedger(path)).kind).toBe('valid');
  });

  it('stops writing when another process changed the file (fencing)', async () => {
    const path = join(await tempDir(), 'ledger.jsonl');
    const writer = await openLedger(path);
    await writer.append(chatEvent('act_1'));
    await appendFile(path, 'intruder\n');
    await expect(writer.append(chatEvent('act_2'))).rejects.toMatchObject({ code: 'ledger_fenced' });
    await writer.close();
  });
  for (const written of ['part of the batch', 'nothing'] as const) {
    it(`given a write that fails with ENOSPC after writing ${written}, then every pending append is rejected, nothing is written after it and a reopen recovers`, async () => {
      const dir = await tempDir();
      const path = join(dir, 'ledger.jsonl');
      let failNextWrite = false;
      let cut = 0;
      const { fs, doubleCloses, openPaths } = faultyFs((base) => ({
        async write(fd, buffer, position) {
          if (!failNextWrite || base.pathOf(fd) !== path) return base.write(fd, buffer, position);
          failNextWrite = false;
          // A partial write: the first two records and part of the third reach the file, then the disk is full.
          cut = written === 'nothing' ? 0 : buffer.indexOf(10, buffer.indexOf(10) + 1) + 20;
          await base.write(fd, buffer.subarray(0, cut), position);
          throw errno('ENOSPC');
        },
      }));
      const writer = await openLedger(path, { fs });
      const acknowledged = await writer.append(chatEvent('act_ok'));
      const sizeBefore = (await stat(path)).size;
      failNextWrite = true;
      // 40 appends: a commit of 32 whose write fails, and a second commit of 8 queued behind it.
      const outcomes = await Promise.allSettled(Array.from({ length: 40 }, (_unused, index) => writer.append(chatEvent(`act_lost_${index}`))));
      expect(outcomes.map((outcome) => (outcome.status === 'rejected' ? (outcome.reason as { code?: string }).code : 'resolved'))).toEqual(Array(40).fill('ledger_unavailable'));
      expect(writer.poisoned).toBeDefined();
      await expect(writer.append(chatEvent('act_after'))).rejects.toMatchObject({ code: 'ledger_unavailable' });
      await writer.close();
      // Only the failed write's own bytes: the second commit never wrote after it.
      expect((await stat(path)).size).toBe(sizeBefore + cut);
      expect(openPaths()).toEqual([]);
      expect(doubleCloses).toEqual([]);

      const reopened = await openLedger(path);
      await reopened.append(chatEvent('act_again'));
      await reopened.close();
      const lines = await records(path);
      expect(lines[acknowledged.seq]?.data.actionId).toBe('act_ok');
      expect(lines.filter((line) => line.type === 'ledger.recovered').map((line) => line.data.reason)).toEqual(written === 'nothing' ? [] : ['last line has no terminating newline']);
      expect((await scanLedger(path)).kind).toBe('valid');
    });
  }

  it('given a checkpoint sidecar write that fails, then the writer is poisoned and a reopen restores the sidecar', async () => {
    const path = join(await tempDir(), 'ledger.jsonl');
    let failSidecar = false;
    const { fs, doubleCloses, openPaths } = faultyFs((base) => ({
      async write(fd, buffer, position) {
        if (failSidecar && base.pathOf(fd)?.startsWith(`${path}.checkpoint.tmp-`)) throw errno('ENOSPC');
        return base.write(fd, buffer, position);
      },
    }));
    const writer = await openLedger(path, { fs, checkpointEveryRecords: 3 });
    failSidecar = true;
    // The batch holding the checkpoint is durable and acknowledged; its sidecar write then fails.
    const receipts = await writer.appendBatch([chatEvent('act_1'), chatEvent('act_2'), chatEvent('act_3')]);
    expect(receipts.map((receipt) => receipt.seq)).toEqual([1, 2, 4]);
    await writer.drain();
    expect(writer.poisoned).toMatchObject({ code: 'ledger_unavailable', message: expect.stringContaining('checkpoint sidecar write failed') });
    await expect(writer.append(chatEvent('act_4'))).rejects.toMatchObject({ code: 'ledger_unavailable' });
    await writer.close();
    expect(openPaths()).toEqual([]);
    expect(doubleCloses).toEqual([]);

    const reopened = await openLedger(path);
    await reopened.close();
    const lines = await records(path);
    expect(lines.map((line) => line.data.actionId ?? line.type)).toEqual(['ledger.genesis', 'act_1', 'act_2', 'ledger.checkpoint', 'act_3', 'ledger.checkpoint']);
    expect((await readFile(`${path}.checkpoint`, 'utf8')).split('\n')[1]).toBe(String(lines.length));
    expect((await scanLedger(path)).kind).toBe('valid');
  });

  it('given a checkpoint sidecar that cannot be restored on open, then open fails and gives back the file and the lock', async () => {
    const path = join(await tempDir(), 'ledger.jsonl');
    const first = await openLedger(path);
    await first.append(chatEvent('act_1'));
    await first.close();
    await rm(`${path}.checkpoint`);
    const { fs, doubleCloses, openPaths } = faultyFs((base) => ({
      async rename(from, to) {
        if (to === `${path}.checkpoint`) throw errno('EIO');
        return base.rename(from, to);
      },
    }));
    await expect(openLedger(path, { fs })).rejects.toMatchObject({ code: 'ledger_unavailable', message: expect.stringContaining('checkpoint sidecar write failed') });
    expect(openPaths()).toEqual([]);
    expect(doubleCloses).toEqual([]);
    const reopened = await openLedger(path);
    await reopened.close();
    expect((await readFile(`${path}.checkpoint`, 'utf8')).split('\n')[1]).toBe(String((await records(path)).length));
  });

  it('given a directory fsync that fails when the ledger is created, then open fails with ledger_unavailable and a reopen uses the genesis it wrote', async () => {
    const dir = await tempDir();
    const path = join(dir, 'ledger.jsonl');
    const { fs, doubleCloses, openPaths } = faultyFs((base) => ({
      async fsyncDirectory(target) {
        if (target === dirname(path)) throw errno('EIO');
        return base.fsyncDirectory(target);
      },
    }));
    await expect(openLedger(path, { fs })).rejects.toMatchObject({ code: 'ledger_unavailable', message: expect.stringContaining('EIO') });
    expect(openPaths()).toEqual([]);
    expect(doubleCloses).toEqual([]);
    const reopened = await openLedger(path);
    const receipt = await reopened.append(chatEvent('act_1'));
    await reopened.close();
    expect(receipt.seq).toBe(1);
    expect((await records(path)).map((line) => line.type)).toEqual(['ledger.genesis', 'action.received', 'ledger.checkpoint']);
  });

  describe('the checkpoint sidecar must be a small regular file', () => {
    async function closedLedger(): Promise<string> {
      const path = join(await tempDir(), 'ledger.jsonl');
      const writer = await openLedger(path);
      await writer.append(chatEvent('act_1'));
      await writer.close();
      return path;
    }

    it('given a FIFO as the sidecar, when opened, then refuses instead of waiting for a writer', async () => {
      const path = await closedLedger();
      await rm(`${path}.checkpoint`);
      execFileSync('mkfifo', [`${path}.checkpoint`]);
      // Should the open block on the FIFO, opening its other end for writing releases it.
      const unblock = async (): Promise<void> => {
        const handle = await open(`${path}.checkpoint`, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => undefined);
        await handle?.close();
      };
      await expect(within(3000, scanLedger(path), unblock)).resolves.toMatchObject({ kind: 'corrupt', defect: { code: 'checkpoint_signature_invalid', message: expect.stringContaining('not a regular file') } });
      await expect(within(3000, openLedger(path), unblock)).rejects.toMatchObject({ code: 'ledger_corrupt', message: expect.stringContaining('not a regular file') });
    });

    it('given a symbolic link as the sidecar, when opened, then refuses instead of following it', async () => {
      const path = await closedLedger();
      const elsewhere = join(dirname(path), 'elsewhere.checkpoint');
      await rename(`${path}.checkpoint`, elsewhere);
      await symlink(elsewhere, `${path}.checkpoint`);
      await expect(openLedger(path)).rejects.toMatchObject({ code: 'ledger_corrupt', message: expect.stringContaining('symbolic link') });
    });

    it('given a sidecar larger than any note, when opened, then refuses without reading it all', async () => {
      const path = await closedLedger();
      // Sparse, so it costs no disk: reading it whole is what the bound prevents (Node refuses a 4 GiB readFile outright).
      await truncate(`${path}.checkpoint`, 4 * 1024 ** 3);
      await expect(openLedger(path)).rejects.toMatchObject({ code: 'ledger_corrupt', message: expect.stringContaining('larger than 65536 bytes') });
    });
  });
});
