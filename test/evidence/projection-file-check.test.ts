import { createHash } from 'node:crypto';
import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SINK_BUFFER_BYTES } from '../../src/evidence/hash-sink.js';
import { ProjectionFileCheck } from '../../src/evidence/projection-file-check.js';
import { tempDir } from '../support/ledger.js';

/**
 * verify-export compares each replayed projection with the bundle's file and hashes only the
 * file: both digests must come out exactly as if the replay and the file were hashed apart,
 * whatever the file holds and however the replay is cut into pieces.
 */

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const work = await tempDir('svc-projection-check-');
let files = 0;

/** `bytes` cut at the given points (each taken modulo the length), in order. */
function pieces(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((cut) => (bytes.length === 0 ? 0 : cut % bytes.length)))].sort((a, b) => a - b);
  const result: Buffer[] = [];
  let at = 0;
  for (const point of [...points, bytes.length]) {
    result.push(bytes.subarray(at, point));
    at = point;
  }
  return result.filter((piece) => piece.length > 0);
}

/** The file as the replay would be, or altered: a byte flipped, cut short, or made longer. */
const fileOf = (replay: Buffer, change: number, where: number): Buffer => {
  const at = replay.length === 0 ? 0 : where % replay.length;
  if (change === 1 && replay.length > 0) return Buffer.concat([replay.subarray(0, at), Buffer.from([(replay[at] as number) ^ 0x20]), replay.subarray(at + 1)]);
  if (change === 2) return replay.subarray(0, at);
  if (change === 3) return Buffer.concat([replay, Buffer.from('extra\n')]);
  return replay;
};

async function check(file: Buffer, replayPieces: Buffer[]): Promise<void> {
  const path = join(work, `projection-${(files += 1)}.jsonl`);
  await writeFile(path, file);
  const checked = await ProjectionFileCheck.open(path);
  try {
    for (const piece of replayPieces) checked.update(piece);
    expect(checked.digest()).toBe(sha256(Buffer.concat(replayPieces)));
    expect(await checked.fileDigest()).toBe(sha256(file));
  } finally {
    await checked.close();
  }
}

describe('ProjectionFileCheck', () => {
  it('gives the digest of the replayed pieces and of the file, equal or not', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2000 }), fc.array(fc.nat(), { maxLength: 8 }), fc.integer({ min: 0, max: 3 }), fc.nat(), async (bytes, cuts, change, where) => {
        const replay = Buffer.from(bytes);
        await check(fileOf(replay, change, where), pieces(replay, cuts));
      }),
      { numRuns: 300 },
    );
  });

  it('compares pieces longer than its read buffer, and files that differ past the first buffer', async () => {
    const replay = Buffer.alloc(3 * SINK_BUFFER_BYTES + 17, 'projection line\n');
    for (const change of [0, 1, 2, 3]) {
      const file = fileOf(replay, change, 2 * SINK_BUFFER_BYTES + 5);
      await check(file, [replay]);
      await check(file, pieces(replay, [SINK_BUFFER_BYTES - 1, 2 * SINK_BUFFER_BYTES + 3]));
    }
  });

  it('still digests the replay for what is not a regular file, and says so or rejects when asked for the file digest', async () => {
    const replay = Buffer.from('{"row":1}\n{"row":2}\n');
    const target = join(work, 'target.jsonl');
    await writeFile(target, replay);
    const link = join(work, 'link.jsonl');
    await symlink(target, link);
    const linked = await ProjectionFileCheck.open(link);
    linked.update(replay);
    expect(linked.digest()).toBe(sha256(replay));
    expect(await linked.fileDigest()).toBeUndefined();
    await linked.close();

    const missing = await ProjectionFileCheck.open(join(work, 'missing.jsonl'));
    missing.update(replay);
    expect(missing.digest()).toBe(sha256(replay));
    await expect(missing.fileDigest()).rejects.toMatchObject({ code: 'ENOENT' });
    await missing.close();
  });
});
