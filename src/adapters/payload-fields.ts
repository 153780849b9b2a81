import * as z from 'zod';

/**
 * Text fields of demo payloads. Lengths count Unicode code points, which is what a person means by
 * "characters" (an emoji is one, not two). A lone surrogate has no UTF-8 or RFC 8785 form, so it
 * is refused here rather than failing later when the bytes are prepared.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LINE_BREAK_OR_CONTROL = /[\p{Cc}\u2028\u2029]/u;

export function text(options: { min?: number; max: number; singleLine?: boolean }) {
  const { min = 0, max, singleLine = false } = options;
  return z
    .string({ error: 'expected a string' })
    .refine((value) => !LONE_SURROGATE.test(value), 'contains a lone surrogate, which is not valid Unicode')
    .refine((value) => countCodePoints(value) >= min, min === 1 ? 'must not be empty' : `at least ${min} characters`)
    .refine((value) => countCodePoints(value) <= max, `at most ${max} characters`)
    .refine((value) => !singleLine || !LINE_BREAK_OR_CONTROL.test(value), 'must be one line without control characters');
}

/**
 * `text(options)`'s verdict without zod, for the hand-written payload readings of the handlers
 * (zod's copy and issue list cost more per request than the rest of a handler's checks).
 */
export function isTextField(value: unknown, options: { min?: number; max: number; singleLine?: boolean }): value is string {
  if (typeof value !== 'string' || LONE_SURROGATE.test(value)) return false;
  const { min = 0, max, singleLine = false } = options;
  // A code point takes one or two UTF-16 units: the length bounds the count from both sides.
  const count = value.length <= max && value.length >= 2 * min ? undefined : countCodePoints(value);
  if (count !== undefined && (count < min || count > max)) return false;
  return !singleLine || !LINE_BREAK_OR_CONTROL.test(value);
}

/** Whether `payload` has exactly `keys` as its own keys, as a z.strictObject of required fields takes it. */
export function hasExactlyKeys(payload: Record<string, unknown>, keys: readonly string[]): boolean {
  let count = 0;
  for (const key in payload) {
    if (!Object.hasOwn(payload, key) || !keys.includes(key)) return false;
    count += 1;
  }
  return count === keys.length;
}

function countCodePoints(value: string): number {
  let count = 0;
  for (const _ of value) count += 1;
  return count;
}

/** The name of a `<kind>:<name>` resource when it is of `kind`, otherwise undefined. */
export function resourceName(resource: string, kind: string): string | undefined {
  const prefix = `${kind}:`;
  return resource.startsWith(prefix) ? resource.slice(prefix.length) : undefined;
}
