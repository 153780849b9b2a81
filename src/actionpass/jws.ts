import { canonicalJson } from '../events/canonical.js';
import { sign, type SigningKey } from './keys.js';

/**
 * Compact JWS with `alg: EdDSA` (RFC 8037), the form of ActionPasses and approval artifacts
 * (DESIGN.md section 6). Header and claims are serialized canonically so a token is reproducible.
 */
export function signCompactJws(key: SigningKey, header: { typ: string; kid: string }, claims: object): string {
  const encodedHeader = Buffer.from(canonicalJson({ alg: 'EdDSA', ...header }), 'utf8').toString('base64url');
  const encodedClaims = Buffer.from(canonicalJson(claims), 'utf8').toString('base64url');
  const signingInput = `${encodedHeader}.${encodedClaims}`;
  return `${signingInput}.${sign(key, Buffer.from(signingInput, 'ascii')).toString('base64url')}`;
}
