import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** A hash as written everywhere in svc: `sha256:` and 64 lowercase hex digits. */
export type Sha256 = `sha256:${string}`;

export const SHA256_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** RFC 8785 (JCS) canonical JSON. Throws on values JCS cannot represent (NaN, lone surrogates, cycles). */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
}

export function sha256Bytes(...parts: Uint8Array[]): Buffer {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
}

export function toSha256(digest: Uint8Array): Sha256 {
  return `sha256:${Buffer.from(digest).toString('hex')}`;
}

export function fromSha256(hash: string): Buffer {
  if (!SHA256_PATTERN.test(hash)) throw new TypeError(`not a sha256 hash: ${hash}`);
  return Buffer.from(hash.slice(7), 'hex');
}

/** `sha256(JCS(value))`, the payloadHash and actionHash of DESIGN.md section 3. */
export function hashCanonical(value: unknown): Sha256 {
  return toSha256(sha256Bytes(Buffer.from(canonicalJson(value), 'utf8')));
}

/**
 * Whether `text` is exactly the JCS form of `parsed` (which must be `JSON.parse(text)`).
 *
 * Re-canonicalizing every line dominates verification time, so this takes a fast path first:
 * JCS is JSON.stringify with keys sorted by UTF-16 code units, so when JSON.stringify reproduces
 * the text and every object's keys are already sorted, the text is canonical. Lone surrogates
 * (only reachable through `\ud…` escapes, since the bytes were checked to be UTF-8) and
 * integer-like keys (which V8 reorders) take the slow path through `canonicalize` itself.
 */
export function isCanonicalText(text: string, parsed: unknown): boolean {
  try {
    if (!text.includes('\\ud') && JSON.stringify(parsed) === text && keysAreSorted(parsed)) return true;
    return canonicalJson(parsed) === text;
  } catch {
    // Hostile nesting can exhaust the stack; such a text is not a record we would have written.
    return false;
  }
}

function keysAreSorted(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) return value.every(keysAreSorted);
  let previous: string | undefined;
  for (const key of Object.keys(value)) {
    if (previous !== undefined && !(previous < key)) return false;
    previous = key;
    if (!keysAreSorted((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}
