import { parseCompactJws, verifyCompactJws } from './jws.js';
import type { TrustedPublicKey, TrustIndex, TrustRole } from './trust-store.js';

/**
 * The checks an ActionPass and an approval artifact share, in order: well-formed compact JWS,
 * the expected `typ` (so one kind of token never passes for the other), a `kid` trusted for the
 * expected role, and the Ed25519 signature. Claims are each token's own business.
 */
export type SignedTokenCheck = { ok: true; claims: Record<string, unknown>; kid: string; signer: TrustedPublicKey } | { ok: false; message: string };

export function verifySignedToken(token: string, expected: { typ: string; role: TrustRole; trust: TrustIndex; what: string }): SignedTokenCheck {
  const parsed = parseCompactJws(token);
  if (parsed === undefined) {
    return { ok: false, message: `not a well-formed ${expected.what}: expected a compact JWS of three unpadded base64url parts with a header of exactly alg "EdDSA", typ and kid, and JSON object claims` };
  }
  const { typ, kid } = parsed.header;
  if (typ !== expected.typ) return { ok: false, message: `header typ is ${JSON.stringify(typ)}, not "${expected.typ}"` };
  const resolution = expected.trust.resolve(kid, expected.role);
  if (!resolution.ok) return { ok: false, message: resolution.message };
  if (!verifyCompactJws(parsed, resolution.key.publicKey)) return { ok: false, message: `signature does not verify under key ${JSON.stringify(kid)}` };
  return { ok: true, claims: parsed.claims, kid, signer: resolution.key };
}
