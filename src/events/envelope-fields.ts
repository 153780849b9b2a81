import { CanonicalByteScan } from './canonical-bytes.js';

/** Where a record line's envelope values sit in its bytes, and its seq. */
export interface EnvelopeFields {
  seq: number;
  /** Index of prevHash's 64 hex digits, after `sha256:`. */
  prevHashHexAt: number;
  /** The type string's contents: [typeStart, typeEnd), between its quotes. */
  typeStart: number;
  typeEnd: number;
}

/**
 * Reads seq, prevHash and type off a record line without parsing it. It answers only for a line
 * whose bytes are exactly
 *
 *   {"data":…,"prevHash":"sha256:<64 lowercase hex>","seq":<integer>,"stream":…,"ts":…,"type":"…","v":…}
 *
 * with every value shown plain and canonical by CanonicalByteScan: the one shape a valid record
 * line has (the envelope's seven keys in JCS order). For any other line it answers undefined,
 * and the caller checks the line the ordinary way.
 *
 * The answer presumes what the scan presumes: that the line is valid UTF-8 and JSON. Whether it
 * is, and whether its values are the catalogue's, is for the caller to see to (verification
 * leaves it to its replay thread, which parses every line anyway).
 */
export function readEnvelopeFields(bytes: Uint8Array): EnvelopeFields | undefined {
  const scan = new CanonicalByteScan(bytes);
  let at = literalAt(bytes, 0, DATA_KEY);
  at = at === -1 ? -1 : scan.value(at, 1);
  at = literalAt(bytes, at, PREV_HASH_KEY);
  if (at === -1 || !isLowerHex(bytes, at, at + HEX_DIGITS)) return undefined;
  const prevHashHexAt = at;
  const seqAt = literalAt(bytes, at + HEX_DIGITS, SEQ_KEY);
  const seqEnd = seqAt === -1 ? -1 : scan.integer(seqAt);
  if (seqEnd === -1) return undefined;
  at = literalAt(bytes, seqEnd, STREAM_KEY);
  at = at === -1 ? -1 : scan.value(at, 1);
  at = literalAt(bytes, at, TS_KEY);
  at = at === -1 ? -1 : scan.value(at, 1);
  const typeStart = literalAt(bytes, at, TYPE_KEY);
  // The type is a string: TYPE_KEY ends with its opening quote.
  const typeAfter = typeStart === -1 ? -1 : scan.string(typeStart - 1);
  at = literalAt(bytes, typeAfter, V_KEY);
  at = at === -1 ? -1 : scan.value(at, 1);
  if (at !== bytes.length - 1 || bytes[at] !== CLOSE_BRACE) return undefined;
  return { seq: integerValue(bytes, seqAt, seqEnd), prevHashHexAt, typeStart, typeEnd: typeAfter - 1 };
}

/** Whether the line's type (located by readEnvelopeFields) is `type`, an ASCII name. */
export function envelopeTypeIs(bytes: Uint8Array, fields: EnvelopeFields, type: Uint8Array): boolean {
  if (fields.typeEnd - fields.typeStart !== type.length) return false;
  for (let index = 0; index < type.length; index += 1) if (bytes[fields.typeStart + index] !== type[index]) return false;
  return true;
}

const ascii = (text: string): Uint8Array => Buffer.from(text, 'latin1');
const DATA_KEY = ascii('{"data":');
const PREV_HASH_KEY = ascii(',"prevHash":"sha256:');
const SEQ_KEY = ascii('","seq":');
const STREAM_KEY = ascii(',"stream":');
const TS_KEY = ascii(',"ts":');
const TYPE_KEY = ascii(',"type":"');
const V_KEY = ascii(',"v":');
const HEX_DIGITS = 64;
const CLOSE_BRACE = 0x7d;

/** The index after `literal` when the bytes at `at` are exactly it, else -1 (also for `at` -1). */
function literalAt(bytes: Uint8Array, at: number, literal: Uint8Array): number {
  if (at === -1 || at + literal.length > bytes.length) return -1;
  for (let index = 0; index < literal.length; index += 1) if (bytes[at + index] !== literal[index]) return -1;
  return at + literal.length;
}

function isLowerHex(bytes: Uint8Array, start: number, end: number): boolean {
  if (end > bytes.length) return false;
  for (let index = start; index < end; index += 1) {
    const c = bytes[index] as number;
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

/** The value of an integer CanonicalByteScan accepted at [start, end): at most 15 digits, so exact. */
function integerValue(bytes: Uint8Array, start: number, end: number): number {
  const negative = bytes[start] === 0x2d;
  let value = 0;
  for (let index = negative ? start + 1 : start; index < end; index += 1) value = value * 10 + ((bytes[index] as number) - 0x30);
  return negative ? -value : value;
}
