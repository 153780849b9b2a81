// What the visitor's browser checks itself, with @noble/hashes and @noble/ed25519 served as they
// are published (no build step): that each payload hash is sha256(JCS(payload)), and that an
// ActionPass or approval artifact is an Ed25519 signature by the key its header names, over
// claims bound to that payload hash.
import { sha256, sha512 } from '/playground/vendor/noble-hashes/sha2.js';
import * as ed from '/playground/vendor/noble-ed25519/index.js';
import { canonicalize } from '/playground/static/jcs.js';

ed.hashes.sha512 = sha512;

const encoder = new TextEncoder();

function hex(bytes) {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export function payloadHash(payload) {
  return `sha256:${hex(sha256(encoder.encode(canonicalize(payload))))}`;
}

function base64urlBytes(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error('not base64url');
  const padded = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  return Uint8Array.from(atob(padded), (char) => char.charCodeAt(0));
}

function base64Bytes(text) {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

/** Verifies a compact JWS against the public keys the playground published; never throws. */
export function verifyToken(jws, keys, expected) {
  try {
    const parts = jws.split('.');
    if (parts.length !== 3) return { ok: false, message: 'not a compact JWS' };
    const [h, p, s] = parts;
    const header = JSON.parse(new TextDecoder().decode(base64urlBytes(h)));
    const claims = JSON.parse(new TextDecoder().decode(base64urlBytes(p)));
    if (header.alg !== 'EdDSA') return { ok: false, message: `alg ${header.alg} is not EdDSA` };
    const key = keys.find((entry) => entry.name === header.kid && entry.role === expected.role);
    if (!key) return { ok: false, message: `key ${header.kid} is not a published ${expected.role} key` };
    const valid = ed.verify(base64urlBytes(s), encoder.encode(`${h}.${p}`), base64Bytes(key.publicKey));
    if (!valid) return { ok: false, message: `the Ed25519 signature does not verify with ${header.kid}`, claims };
    if (claims.payloadHash !== expected.payloadHash) return { ok: false, message: `signed payloadHash ${claims.payloadHash} is not ${expected.payloadHash}`, claims };
    return { ok: true, message: `Ed25519 signature valid (${header.typ}, key ${header.kid}), bound to ${claims.payloadHash}`, claims };
  } catch (error) {
    return { ok: false, message: `cannot be read: ${error.message}` };
  }
}
