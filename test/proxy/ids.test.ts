import { randomFillSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ID_BYTES, IDS_PER_DRAW, newId } from '../../src/proxy/ids.js';

describe('newId', () => {
  it('gives a prefix and 16 base64url characters, never the same twice, across several draws', () => {
    const ids = Array.from({ length: 3 * IDS_PER_DRAW + 5 }, (_, index) => newId(['act', 'pass', 'apr'][index % 3] as string));
    for (const id of ids) expect(id).toMatch(/^(act|pass|apr)_[A-Za-z0-9_-]{16}$/);
    expect(new Set(ids.map((id) => id.slice(id.indexOf('_') + 1))).size).toBe(ids.length);
  });

  it("slices of an encoded draw are the encodings of each id's own 12 bytes", () => {
    for (let round = 0; round < 20; round += 1) {
      const bytes = randomFillSync(Buffer.alloc(IDS_PER_DRAW * ID_BYTES));
      const text = bytes.toString('base64url');
      for (let index = 0; index < IDS_PER_DRAW; index += 1) {
        expect(text.slice(16 * index, 16 * index + 16)).toBe(bytes.toString('base64url', ID_BYTES * index, ID_BYTES * (index + 1)));
      }
    }
  });
});
