import { createHash, hash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** A hash as written everywhere in svc: `sha256:` and 64 lowercase hex digits. */
export type Sha256 = `sha256:${string}`;

export const SHA256_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** 1 at the char code of each lowercase hex digit. */
const LOWER_HEX = new Uint8Array(128);
for (const digit of '0123456789abcdef') LOWER_HEX[digit.charCodeAt(0)] = 1;

const SHA256_PREFIX = 'sha256:';
/** The length of `sha256:` and 64 hex digits. */
export const SHA256_TEXT_LENGTH = SHA256_PREFIX.length + 64;

/**
 * `SHA256_PATTERN.test(text)`, written out: verification tests several hashes in every record
 * of a ledger, and a table look-up per digit costs about a third less than entering the regex
 * engine each time. A property test holds the two to the same answers.
 */
export function isSha256Text(text: string): boolean {
  return text.length === SHA256_TEXT_LENGTH && isSha256TextAt(text, 0);
}

/** Whether `sha256:` and 64 lowercase hex digits start at `at` in `text` (more may follow). */
export function isSha256TextAt(text: string, at: number): boolean {
  if (at + SHA256_TEXT_LENGTH > text.length || !text.startsWith(SHA256_PREFIX, at)) return false;
  for (let index = at + SHA256_PREFIX.length; index < at + SHA256_TEXT_LENGTH; index += 1) {
    const code = text.charCodeAt(index);
    if (code >= 128 || LOWER_HEX[code] === 0) return false;
  }
  return true;
}

/**
 * RFC 8785 (JCS) canonical JSON. Throws on values JCS cannot represent (NaN, infinities, lone
 * surrogates, nesting deeper than 256).
 *
 * JCS is JSON.stringify with object keys sorted by UTF-16 code units. This is the hottest
 * function of the ledger (every record, every projection row), so it serializes directly
 * instead of through the `canonicalize` package, which stays the reference: a property test
 * checks that both give the same bytes for arbitrary JSON values.
 */
export function canonicalJson(value: unknown): string {
  return serialize(value, 0);
}

const MAX_DEPTH = 256;

function serialize(value: unknown, depth: number): string {
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`${value} has no JSON representation`);
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (depth >= MAX_DEPTH) throw new TypeError(`nesting deeper than ${MAX_DEPTH}`);
      if (Array.isArray(value)) {
        let text = '[';
        for (let index = 0; index < value.length; index += 1) {
          if (index > 0) text += ',';
          const item: unknown = value[index];
          text += item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 'null' : serialize(item, depth + 1);
        }
        return `${text}]`;
      }
      const withJson = value as { toJSON?: () => unknown };
      if (typeof withJson.toJSON === 'function') return serialize(withJson.toJSON(), depth + 1);
      const record = value as Record<string, unknown>;
      // A planned shape goes first even when its keys are in order: for the ledger's records,
      // sorted or not, the plan writes them faster than isPlainSorted's walk and JSON.stringify.
      const plan = keyPlanOf(record);
      let text = '{';
      if (plan === undefined) {
        // A subtree whose keys are already in order is exactly what JSON.stringify writes, natively.
        if (isPlainSorted(value, depth)) {
          const native = JSON.stringify(value);
          if (!native.includes('\\ud')) return native;
        }
        for (const key of Object.keys(record).sort()) {
          const item = record[key];
          if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
          if (text.length > 1) text += ',';
          text += `${quote(key)}:${serialize(item, depth + 1)}`;
        }
        return `${text}}`;
      }
      const { keys, heads, commaHeads } = plan;
      for (let index = 0; index < keys.length; index += 1) {
        const item = record[keys[index] as string];
        if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
        text += `${text.length > 1 ? commaHeads[index] : heads[index]}${serialize(item, depth + 1)}`;
      }
      return `${text}}`;
    }
    default:
      throw new TypeError(`a ${typeof value} has no JSON representation`);
  }
}

/**
 * How to write an object with a given own-key sequence: its keys in JCS order and each one quoted
 * with its colon (and comma). The ledger's events come in a handful of shapes whose keys are not
 * in order (an action's `schemaVersion, actor, intent, capability`), and sorting and quoting the
 * same keys again for every record was half the cost of serializing one; Object.keys allocates
 * too. The plans hang off a trie walked with the object's own keys in enumeration order, which
 * is Object.keys order, so a node stands for exactly one key sequence and its plan is that
 * sequence sorted.
 */
interface KeyPlan {
  keys: string[];
  heads: string[];
  commaHeads: string[];
}

interface ShapeNode {
  next: Map<string, ShapeNode>;
  plan: KeyPlan | undefined;
}

/**
 * Bounds on what the trie keeps, since keys may come from callers (an action's payload): past
 * them an object is written the uncached way, sorting its keys, as before. They leave room for
 * every shape svc itself writes many times over.
 */
const MAX_SHAPE_NODES = 8192;
const MAX_PLANNED_KEYS = 64;
const MAX_PLANNED_KEY_LENGTH = 128;

const SHAPES: ShapeNode = { next: new Map(), plan: undefined };
let shapeNodes = 1;

/** The plan for `record`'s own enumerable keys, or undefined when the bounds leave it uncached. */
function keyPlanOf(record: Record<string, unknown>): KeyPlan | undefined {
  let node = SHAPES;
  let count = 0;
  for (const key in record) {
    // for-in also walks inherited enumerable keys, which Object.keys (and JCS) leave out.
    if (!Object.hasOwn(record, key)) continue;
    count += 1;
    let child = node.next.get(key);
    if (child === undefined) {
      if (shapeNodes >= MAX_SHAPE_NODES || count > MAX_PLANNED_KEYS || key.length > MAX_PLANNED_KEY_LENGTH) return undefined;
      child = { next: new Map(), plan: undefined };
      node.next.set(key, child);
      shapeNodes += 1;
    }
    node = child;
  }
  if (node.plan === undefined) {
    const keys = Object.keys(record).sort();
    node.plan = { keys, heads: keys.map((key) => `${quote(key)}:`), commaHeads: keys.map((key) => `,${quote(key)}:`) };
  }
  return node.plan;
}

/** Keys sorted at every level, numbers finite, nothing JSON.stringify would treat differently from JCS. */
function isPlainSorted(value: unknown, depth: number): boolean {
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) {
      if (item === null) continue;
      const type = typeof item;
      if (type === 'object' ? !isPlainSorted(item, depth + 1) : type === 'number' ? !Number.isFinite(item) : type !== 'string' && type !== 'boolean') return false;
    }
    return true;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  let previous: string | undefined;
  for (const key in value as object) {
    if (!Object.hasOwn(value as object, key)) return false;
    if (previous !== undefined && !(previous < key)) return false;
    previous = key;
    const item = (value as Record<string, unknown>)[key];
    if (item === null) continue;
    const type = typeof item;
    if (type === 'object' ? !isPlainSorted(item, depth + 1) : type === 'number' ? !Number.isFinite(item) : type !== 'string' && type !== 'boolean') return false;
  }
  return true;
}

/** JSON.stringify escapes exactly as JCS does; it writes a lone surrogate as `\udxxx`, which JCS forbids. */
function quote(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return `"${text}"`;
  const quoted = JSON.stringify(text);
  if (quoted.includes('\\ud') && LONE_SURROGATE.test(text)) throw new TypeError('a string with a lone surrogate has no JCS form');
  return quoted;
}

const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function sha256Bytes(...parts: Uint8Array[]): Buffer {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
}

export function toSha256(digest: Uint8Array): Sha256 {
  // A view, not a copy: this runs for every record sealed or checked.
  return `sha256:${Buffer.from(digest.buffer, digest.byteOffset, digest.byteLength).toString('hex')}`;
}

export function fromSha256(hash: string): Buffer {
  if (!SHA256_PATTERN.test(hash)) throw new TypeError(`not a sha256 hash: ${hash}`);
  return Buffer.from(hash.slice(7), 'hex');
}

/** `sha256(JCS(value))`, the payloadHash and actionHash of DESIGN.md section 3. */
export function hashCanonical(value: unknown): Sha256 {
  // One-shot hashing of the string (UTF-8) skips a Hash object and a Buffer per call.
  return `sha256:${hash('sha256', canonicalJson(value), 'hex')}`;
}

/**
 * Whether `text` is exactly the JCS form of `parsed` (which must be `JSON.parse(text)`).
 *
 * Re-serializing every line dominates verification time, so this takes a fast path first:
 * JCS is JSON.stringify with keys sorted by UTF-16 code units, so when JSON.stringify reproduces
 * the text and every object's keys are already sorted, the text is canonical. Lone surrogates
 * (only reachable through `\ud…` escapes, since the bytes were checked to be UTF-8) and
 * integer-like keys (which V8 reorders) take the slow path through `canonicalize` itself.
 */
export function isCanonicalText(text: string, parsed: unknown): boolean {
  try {
    if (!text.includes('\\ud') && JSON.stringify(parsed) === text && keysAreSorted(parsed)) return true;
    return canonicalize(parsed) === text;
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
