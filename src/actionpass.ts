/**
 * `svc/actionpass`: canonical hashing and Ed25519 keys. The ActionPass itself and the SDK's five
 * verbs join this entry point with the enforcement spine.
 */
export { canonicalJson, hashCanonical, isCanonicalText, type Sha256 } from './events/canonical.js';
export { generateSigningKey, signingKeyFromSeed, publicKeyInfo, readKeyFile, writeKeyFile, loadOrCreateKey, verifySignature, type SigningKey, type PublicKeyInfo } from './actionpass/keys.js';
export { signCompactJws } from './actionpass/jws.js';
export { SvcError } from './errors.js';
