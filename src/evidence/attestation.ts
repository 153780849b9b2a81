/**
 * Export attestations: a DSSE envelope (github.com/secure-systems-lab/dsse, v1) whose payload is
 * an in-toto Statement v1 (DESIGN.md section 4, "Export bundle").
 *
 * - payloadType is `application/vnd.in-toto+json`; the payload is the RFC 8785 (JCS) form of
 *   the statement, and `openEnvelope` requires it to be exactly that (no duplicate keys, one
 *   byte form per statement).
 * - The signature is Ed25519 over PAE(payloadType, payload).
 * - `keyid` is the lowercase hex of the key's C2SP note key id (`noteKeyId(name, publicKey)`,
 *   8 hex digits), the same id its checkpoint signatures carry. DSSE treats keyid as an
 *   unauthenticated hint, and so does `openEnvelope`: it accepts the envelope when any signature
 *   verifies with the given public key, whatever its keyid.
 *
 * Error codes: attestation_invalid (malformed envelope or statement, wrong payloadType or
 * _type, too large), attestation_signature_invalid (no signature verifies).
 */
import * as z from 'zod';
import { SvcError } from '../errors.js';
import { ED25519_PUBLIC_KEY_LENGTH, decodeBase64Strict, sign, verifySignature, type SigningKey } from '../actionpass/keys.js';
import { canonicalJson, isCanonicalText } from '../events/canonical.js';
import { noteKeyId } from '../events/checkpoint.js';

export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export const IN_TOTO_STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/** Largest envelope `openEnvelope` reads, in UTF-8 bytes. */
export const MAX_ENVELOPE_BYTES = 16 * 1024 * 1024;
/** Most signatures `openEnvelope` tries. */
export const MAX_ENVELOPE_SIGNATURES = 16;

export type InTotoSubject = { name: string; digest: { sha256: string } };

export type InTotoStatement = {
  _type: typeof IN_TOTO_STATEMENT_TYPE;
  subject: InTotoSubject[];
  predicateType: string;
  predicate: unknown;
};

export type DsseSignature = { keyid: string; sig: string };

export type DsseEnvelope = {
  /** Standard base64 of the payload bytes. */
  payload: string;
  payloadType: string;
  signatures: DsseSignature[];
};

export type OpenedEnvelope =
  | { ok: true; statement: InTotoStatement }
  | { ok: false; code: 'attestation_invalid' | 'attestation_signature_invalid'; message: string };

/** DSSE v1 pre-authentication encoding: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body. */
export function pae(payloadType: string, payload: Uint8Array): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `, 'ascii'),
    type,
    Buffer.from(` ${payload.length} `, 'ascii'),
    payload,
  ]);
}

// DSSE: "Consumers MUST ignore unrecognized fields"; in-toto v1 says the same of statements.
// Unknown fields are therefore accepted and dropped, while every field svc relies on is strict.
const EnvelopeSchema = z.object({
  payload: z.string(),
  payloadType: z.string(),
  signatures: z
    .array(z.object({ keyid: z.string().optional(), sig: z.string() }))
    .min(1, 'an envelope has at least one signature')
    .max(MAX_ENVELOPE_SIGNATURES, `an envelope has at most ${MAX_ENVELOPE_SIGNATURES} signatures`),
});

const StatementSchema = z.object({
  _type: z.literal(IN_TOTO_STATEMENT_TYPE),
  subject: z
    .array(
      z.object({
        name: z.string().min(1),
        digest: z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/, 'sha256 digest is 64 lowercase hex digits') }),
      }),
    )
    .min(1, 'a statement has at least one subject'),
  predicateType: z.string().min(1),
  predicate: z.record(z.string(), z.unknown()),
});

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

/** Validates a statement; returns the parsed statement or a message naming the first defects. */
function checkStatement(value: unknown): { ok: true; statement: InTotoStatement } | { ok: false; message: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, message: 'statement is not a JSON object' };
  const type = (value as { _type?: unknown })._type;
  if (type !== IN_TOTO_STATEMENT_TYPE) {
    return { ok: false, message: `statement _type is ${JSON.stringify(type) ?? 'missing'}, expected ${IN_TOTO_STATEMENT_TYPE}` };
  }
  const parsed = StatementSchema.safeParse(value);
  if (!parsed.success) return { ok: false, message: `statement is invalid: ${describeIssues(parsed.error)}` };
  const seen = new Set<string>();
  for (const subject of parsed.data.subject) {
    if (seen.has(subject.name)) return { ok: false, message: `statement names subject ${JSON.stringify(subject.name)} twice` };
    seen.add(subject.name);
  }
  return { ok: true, statement: parsed.data };
}

/** Signs `statement` into a DSSE envelope with one signature by `key`. */
export function signStatement(key: SigningKey, statement: InTotoStatement): DsseEnvelope {
  const checked = checkStatement(statement);
  if (!checked.ok) throw new SvcError('attestation_invalid', checked.message);
  let text: string;
  try {
    text = canonicalJson(statement);
  } catch (error) {
    throw new SvcError('attestation_invalid', `statement has no canonical JSON form: ${(error as Error).message}`, { cause: error });
  }
  const payload = Buffer.from(text, 'utf8');
  const sig = sign(key, pae(IN_TOTO_PAYLOAD_TYPE, payload));
  return {
    payload: payload.toString('base64'),
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    signatures: [{ keyid: noteKeyId(key.name, key.publicKey).toString('hex'), sig: sig.toString('base64') }],
  };
}

/** DSSE allows standard or URL-safe base64; decoded strictly either way (URL-safe padding optional). */
function decodeDsseBase64(text: string): Buffer | undefined {
  const standard = decodeBase64Strict(text);
  if (standard !== undefined) return standard;
  const match = /^([A-Za-z0-9_-]*)(=*)$/.exec(text);
  if (match === null) return undefined;
  const [, body = '', padding = ''] = match;
  const bytes = Buffer.from(body, 'base64url');
  if (bytes.toString('base64url') !== body) return undefined;
  if (padding.length > 0 && padding.length !== (4 - (body.length % 4)) % 4) return undefined;
  return bytes;
}

function fail(code: 'attestation_invalid' | 'attestation_signature_invalid', message: string): OpenedEnvelope {
  return { ok: false, code, message };
}

/**
 * Parses a DSSE envelope (JSON text), verifies it with `publicKey32`, and returns the in-toto
 * statement it carries. The signature is checked before the payload is parsed. Never throws.
 */
export function openEnvelope(json: string, publicKey32: Uint8Array): OpenedEnvelope {
  try {
    return openEnvelopeUnsafe(json, publicKey32);
  } catch (error) {
    // Defence in depth (for example a stack overflow on absurdly nested input).
    return fail('attestation_invalid', `attestation cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function openEnvelopeUnsafe(json: string, publicKey32: Uint8Array): OpenedEnvelope {
  if (typeof json !== 'string') return fail('attestation_invalid', 'attestation is not text');
  if (json.length > MAX_ENVELOPE_BYTES || Buffer.byteLength(json, 'utf8') > MAX_ENVELOPE_BYTES) {
    return fail('attestation_invalid', `attestation larger than ${MAX_ENVELOPE_BYTES} bytes`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return fail('attestation_invalid', 'attestation is not JSON');
  }
  const envelope = EnvelopeSchema.safeParse(raw);
  if (!envelope.success) return fail('attestation_invalid', `DSSE envelope is invalid: ${describeIssues(envelope.error)}`);
  const { payloadType, signatures } = envelope.data;
  if (payloadType !== IN_TOTO_PAYLOAD_TYPE) {
    return fail('attestation_invalid', `payloadType is ${JSON.stringify(payloadType)}, expected ${IN_TOTO_PAYLOAD_TYPE}`);
  }
  const payload = decodeDsseBase64(envelope.data.payload);
  if (payload === undefined) return fail('attestation_invalid', 'payload is not base64');
  const decodedSignatures: Buffer[] = [];
  for (const [index, signature] of signatures.entries()) {
    const bytes = decodeDsseBase64(signature.sig);
    if (bytes === undefined) return fail('attestation_invalid', `signatures.${index}.sig is not base64`);
    decodedSignatures.push(bytes);
  }

  if (!(publicKey32 instanceof Uint8Array) || publicKey32.length !== ED25519_PUBLIC_KEY_LENGTH) {
    return fail('attestation_signature_invalid', 'the public key to verify with is not 32 bytes');
  }
  const message = pae(payloadType, payload);
  if (!decodedSignatures.some((sig) => verifySignature(publicKey32, message, sig))) {
    return fail(
      'attestation_signature_invalid',
      `none of the ${decodedSignatures.length} signature(s) verifies with public key ${Buffer.from(publicKey32).toString('base64')}`,
    );
  }

  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(payload);
  } catch {
    return fail('attestation_invalid', 'payload is not UTF-8');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fail('attestation_invalid', 'payload is not JSON');
  }
  if (!isCanonicalText(text, value)) return fail('attestation_invalid', 'payload is not canonical JSON (RFC 8785)');
  const checked = checkStatement(value);
  if (!checked.ok) return fail('attestation_invalid', checked.message);
  return { ok: true, statement: checked.statement };
}
