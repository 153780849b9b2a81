import { canonicalJson } from '../events/canonical.js';
import { sign, verifySignature, type SigningKey } from './keys.js';

/**
 * Compact JWS with `alg: EdDSA` (RFC 7515, RFC 8037), the form of ActionPasses and approval
 * artifacts (DESIGN.md section 6).
 *
 * Signing serializes header and claims canonically so a token is reproducible. Parsing is
 * deliberately narrower than RFC 7515: svc only ever needs Ed25519 tokens with a `typ` and a
 * `kid`, so anything else (other algorithms, `crit`, `jku`, embedded keys, padding, duplicate
 * JSON keys) is refused before a signature is even looked at. Nothing in this module throws on
 * hostile input.
 */

/** Longest token accepted, the size the ledger catalogue allows for a stored token. */
export const MAX_COMPACT_JWS_LENGTH = 16_384;
/** A header of three short members never needs more; a larger one is not ours. */
const MAX_HEADER_PART_LENGTH = 1_024;
/** base64url of a 64-byte Ed25519 signature without padding. */
const SIGNATURE_PART_LENGTH = 86;

export interface JwsHeader {
  alg: 'EdDSA';
  typ: string;
  kid: string;
}

export interface ParsedCompactJws {
  header: JwsHeader;
  /** The JWS payload, a JSON object whose members are not yet checked against any schema. */
  claims: Record<string, unknown>;
  /** ASCII bytes of `<header>.<payload>`, what the signature covers. */
  signingInput: Buffer;
  /** The 64 raw signature bytes. */
  signature: Buffer;
}

export function signCompactJws(key: SigningKey, header: { typ: string; kid: string }, claims: object): string {
  return signCompactJwsText(key, header, canonicalJson(claims));
}

/** `signCompactJws` for claims already serialized: `claimsJson` must be their JCS text, signed as it is. */
export function signCompactJwsText(key: SigningKey, header: { typ: string; kid: string }, claimsJson: string): string {
  const signingInput = `${encodedHeader(header)}.${Buffer.from(claimsJson, 'utf8').toString('base64url')}`;
  return `${signingInput}.${sign(key, Buffer.from(signingInput, 'ascii')).toString('base64url')}`;
}

/**
 * A token signCompactJwsText wrote, as a JSON string: its three base64url parts are characters
 * neither JSON.stringify nor JCS escapes, so the token between quotes. Only for tokens this
 * process signed (the enforcer's passes, wherever they were signed); a token from outside is
 * serialized the usual way.
 */
export function signedTokenJson(token: string): string {
  return `"${token}"`;
}

/** A signer uses one or two headers for its whole life; each is serialized and encoded once. */
const encodedHeaders = new Map<string, string>();
const MAX_ENCODED_HEADERS = 64;

function encodedHeader(header: { typ: string; kid: string }): string {
  const cacheKey = `${header.typ}\n${header.kid}`;
  let encoded = encodedHeaders.get(cacheKey);
  if (encoded === undefined) {
    encoded = Buffer.from(canonicalJson({ alg: 'EdDSA', kid: header.kid, typ: header.typ }), 'utf8').toString('base64url');
    if (encodedHeaders.size >= MAX_ENCODED_HEADERS) encodedHeaders.clear();
    encodedHeaders.set(cacheKey, encoded);
  }
  return encoded;
}

/**
 * Splits and decodes a compact JWS, strictly: exactly three base64url parts without padding
 * whose decoding re-encodes to the same text (so one token has one spelling), a header that is a
 * JSON object with exactly `alg: "EdDSA"`, `typ` and `kid`, and a payload that is a JSON object.
 * Returns undefined for anything else. Does not check the signature: see `verifyCompactJws`.
 */
export function parseCompactJws(token: unknown): ParsedCompactJws | undefined {
  if (typeof token !== 'string' || token.length > MAX_COMPACT_JWS_LENGTH) return undefined;
  const firstDot = token.indexOf('.');
  const secondDot = token.indexOf('.', firstDot + 1);
  if (firstDot < 0 || secondDot < 0 || token.indexOf('.', secondDot + 1) >= 0) return undefined;
  const headerPart = token.slice(0, firstDot);
  const claimsPart = token.slice(firstDot + 1, secondDot);
  const signaturePart = token.slice(secondDot + 1);
  if (headerPart.length > MAX_HEADER_PART_LENGTH || signaturePart.length !== SIGNATURE_PART_LENGTH) return undefined;

  const signature = decodeBase64UrlStrict(signaturePart);
  if (signature === undefined) return undefined;
  const header = decodeJsonObject(headerPart);
  if (header === undefined || !isJwsHeader(header)) return undefined;
  const claims = decodeJsonObject(claimsPart);
  if (claims === undefined) return undefined;
  return { header, claims, signingInput: Buffer.from(token.slice(0, secondDot), 'ascii'), signature };
}

/** Whether the parsed token's signature verifies under the raw 32-byte Ed25519 `publicKey` (node:crypto). */
export function verifyCompactJws(parsed: ParsedCompactJws, publicKey: Uint8Array): boolean {
  return verifySignature(publicKey, parsed.signingInput, parsed.signature);
}

function isJwsHeader(value: Record<string, unknown>): value is Record<string, unknown> & JwsHeader {
  const keys = Object.keys(value);
  return (
    keys.length === 3 &&
    value.alg === 'EdDSA' &&
    typeof value.typ === 'string' &&
    value.typ.length > 0 &&
    typeof value.kid === 'string' &&
    value.kid.length > 0
  );
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** base64url without padding, refusing any text that is not exactly the encoding of its bytes. */
function decodeBase64UrlStrict(text: string): Buffer | undefined {
  if (text.length === 0 || !BASE64URL.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  // Catches a length of 1 mod 4 and non-zero trailing bits, which Buffer ignores silently.
  return bytes.toString('base64url') === text ? bytes : undefined;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function decodeJsonObject(part: string): Record<string, unknown> | undefined {
  const bytes = decodeBase64UrlStrict(part);
  if (bytes === undefined) return undefined;
  let text: string;
  let value: unknown;
  try {
    text = UTF8.decode(bytes);
    value = JSON.parse(text);
  } catch {
    // Not UTF-8, not JSON, or nested deeply enough to exhaust the parser's stack.
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  // JSON.parse keeps the last of duplicate members while other parsers keep the first; a token
  // that two verifiers would read differently is refused outright.
  if (hasDuplicateKeys(text)) return undefined;
  return value as Record<string, unknown>;
}

interface Frame {
  keys: Set<string> | undefined; // undefined for arrays
  expectKey: boolean;
}

/** Whether any object in `text`, which must already be valid JSON, names a member twice. */
function hasDuplicateKeys(text: string): boolean {
  const stack: Frame[] = [];
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (char === 0x22 /* " */) {
      let end = index + 1;
      let escaped = false;
      while (end < text.length) {
        const inner = text.charCodeAt(end);
        if (inner === 0x5c /* \ */) {
          escaped = true;
          end += 2;
          continue;
        }
        if (inner === 0x22) break;
        end += 1;
      }
      const frame = stack[stack.length - 1];
      if (frame?.keys !== undefined && frame.expectKey) {
        const literal = text.slice(index, end + 1);
        const key = escaped ? (JSON.parse(literal) as string) : literal.slice(1, -1);
        if (frame.keys.has(key)) return true;
        frame.keys.add(key);
        frame.expectKey = false;
      }
      index = end;
    } else if (char === 0x7b /* { */) {
      stack.push({ keys: new Set(), expectKey: true });
    } else if (char === 0x5b /* [ */) {
      stack.push({ keys: undefined, expectKey: false });
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) {
      stack.pop();
    } else if (char === 0x2c /* , */) {
      const frame = stack[stack.length - 1];
      if (frame?.keys !== undefined) frame.expectKey = true;
    }
  }
  return false;
}
