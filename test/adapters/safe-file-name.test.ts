import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeFileName } from '../../src/adapters/outbox-names.js';

describe('safeFileName', () => {
  it('keeps plain names as they are', () => {
    for (const name of ['eng', 'ana@example.com', 'act_01H-x.y+z']) expect(safeFileName(name)).toBe(name);
  });

  it('encodes separators, a leading dot and non-ASCII bytes', () => {
    expect(safeFileName('..')).toBe('%2E.');
    expect(safeFileName('.')).toBe('%2E');
    expect(safeFileName('../../etc/passwd')).toBe('%2E.%2F..%2Fetc%2Fpasswd');
    expect(safeFileName('a\\b')).toBe('a%5Cb');
    expect(safeFileName('a%b')).toBe('a%25b');
    expect(safeFileName('é')).toBe('%C3%A9');
    expect(safeFileName('a\0b')).toBe('a%00b');
  });

  it('refuses empty names and names longer than 255 bytes once encoded', () => {
    expect(safeFileName('')).toBeUndefined();
    expect(safeFileName('a'.repeat(255))).toBe('a'.repeat(255));
    expect(safeFileName('a'.repeat(256))).toBeUndefined();
    expect(safeFileName('/'.repeat(86))).toBeUndefined();
  });

  it('never yields a separator, a leading dot, "." or "..", and never maps two names to one (10,000 cases)', () => {
    const seen = new Map<string, string>();
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (name) => {
        const safe = safeFileName(name);
        if (safe === undefined) return name.length === 0 || Buffer.byteLength(name) > 85;
        expect(safe).not.toMatch(/[/\\\0]/);
        expect(safe.startsWith('.')).toBe(false);
        const earlier = seen.get(safe);
        if (earlier !== undefined) expect(earlier).toBe(name);
        seen.set(safe, name);
        return true;
      }),
      { numRuns: 10_000 },
    );
  });
});
