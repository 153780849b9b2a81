import { isAscii, isUtf8 } from 'node:buffer';
import { isSha256TextAt, SHA256_TEXT_LENGTH } from './canonical.js';
import { CanonicalFormScan, SURROGATE } from './canonical-form.js';

/** A record line's text, its seq, and where its prevHash and type sit in the text. */
export interface EnvelopeFields {
  text: string;
  seq: number;
  /** Index of prevHash's value, `sha256:` and 64 lowercase hex digits, without its quotes. */
  prevHashAt: number;
  /** The type string's contents: [typeStart, typeEnd), between its quotes. */
  typeStart: number;
  typeEnd: number;
  /** Whether prevHash is exactly the `expectedPrevHash` the caller gave. */
  prevHashIsExpected: boolean;
}

/**
 * Reads seq, prevHash and type off a record line without parsing it. It answers only for a line
 * that is valid UTF-8 (decoded as latin1 when it is ASCII, which is cheaper and the same text),
 * has no character outside the BMP, and reads exactly
 *
 *   {"data":…,"prevHash":"sha256:<64 lowercase hex>","seq":<integer>,"stream":…,"ts":…,"type":"…","v":…}
 *
 * with every value shown plain and canonical by the scan of canonical-form.ts: the one shape a
 * valid record line has (the envelope's seven keys in JCS order). For any other line it answers
 * undefined, and the caller checks the line the ordinary way.
 *
 * The answer presumes what that scan presumes: that the line is JSON. Whether it is, and whether
 * its values are the catalogue's, is for the caller to see to (verification leaves both to its
 * replay thread, which parses every line anyway).
 *
 * `expectedPrevHash`, which must itself be `sha256:` and 64 lowercase hex digits, is the prevHash
 * the caller expects (the hash of the record before). A line whose prevHash is exactly that string
 * has a prevHash of the right form without looking at each digit, which is most of the cost of
 * reading it in a valid ledger; the answer is the same either way, `prevHashIsExpected` aside.
 */
export function readEnvelopeFields(bytes: Buffer, expectedPrevHash?: string): EnvelopeFields | undefined {
  let text: string;
  if (isAscii(bytes)) text = bytes.toString('latin1');
  else if (isUtf8(bytes)) {
    text = bytes.toString('utf8');
    if (SURROGATE.test(text)) return undefined;
  } else return undefined;
  const scan = new CanonicalFormScan(text);
  let at = literalAt(text, 0, DATA_KEY);
  at = at === -1 ? -1 : scan.value(at, 1);
  const prevHashAt = literalAt(text, at, PREV_HASH_KEY);
  if (prevHashAt === -1) return undefined;
  const prevHashIsExpected = expectedPrevHash !== undefined && text.startsWith(expectedPrevHash, prevHashAt);
  if (!prevHashIsExpected && !isSha256TextAt(text, prevHashAt)) return undefined;
  const seqAt = literalAt(text, prevHashAt + SHA256_TEXT_LENGTH, SEQ_KEY);
  const seqEnd = seqAt === -1 ? -1 : scan.integer(seqAt);
  if (seqEnd === -1) return undefined;
  at = literalAt(text, seqEnd, STREAM_KEY);
  at = at === -1 ? -1 : scan.value(at, 1);
  at = literalAt(text, at, TS_KEY);
  at = at === -1 ? -1 : scan.value(at, 1);
  const typeStart = literalAt(text, at, TYPE_KEY);
  // The type is a string: TYPE_KEY ends with its opening quote.
  const typeAfter = typeStart === -1 ? -1 : scan.string(typeStart - 1);
  at = literalAt(text, typeAfter, V_KEY);
  at = at === -1 ? -1 : scan.value(at, 1);
  if (at !== text.length - 1 || text.charCodeAt(at) !== CLOSE_BRACE) return undefined;
  return { text, seq: integerAt(text, seqAt, seqEnd), prevHashAt, typeStart, typeEnd: typeAfter - 1, prevHashIsExpected };
}

/**
 * `Number(text.slice(start, end))` for an integer the scan accepted (an optional minus and at most
 * 15 digits, so exact in a double), read digit by digit: no string is cut out for every line.
 */
function integerAt(text: string, start: number, end: number): number {
  const negative = text.charCodeAt(start) === MINUS;
  let value = 0;
  for (let index = negative ? start + 1 : start; index < end; index += 1) value = value * 10 + (text.charCodeAt(index) - ZERO);
  return negative ? -value : value;
}

/** Whether the line's type is `type`. */
export function envelopeTypeIs(fields: EnvelopeFields, type: string): boolean {
  return fields.typeEnd - fields.typeStart === type.length && fields.text.startsWith(type, fields.typeStart);
}

/** The line's prevHash, as JSON.parse would read it. */
export function envelopePrevHash(fields: EnvelopeFields): string {
  return fields.text.slice(fields.prevHashAt, fields.prevHashAt + SHA256_TEXT_LENGTH);
}

const DATA_KEY = '{"data":';
const PREV_HASH_KEY = ',"prevHash":"';
const SEQ_KEY = '","seq":';
const STREAM_KEY = ',"stream":';
const TS_KEY = ',"ts":';
const TYPE_KEY = ',"type":"';
const V_KEY = ',"v":';
const CLOSE_BRACE = 0x7d;
const MINUS = 0x2d;
const ZERO = 0x30;

/** The index after `literal` when the text at `at` is exactly it, else -1 (also for `at` -1). */
function literalAt(text: string, at: number, literal: string): number {
  return at !== -1 && text.startsWith(literal, at) ? at + literal.length : -1;
}
