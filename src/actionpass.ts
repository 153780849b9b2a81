/**
 * `svc/actionpass`: the normalized action and its canonical hashes, Ed25519 keys, ActionPass and
 * approval artifact tokens, the trust store, and the five-verb SDK (`createSvc`).
 */
export { canonicalJson, hashCanonical, isCanonicalText, type Sha256 } from './events/canonical.js';
export { normalizeAction, normalizedActionSchema, ACTION_SCHEMA_VERSION, type NormalizedAction, type NormalizedResult, type ActionIssue, type Payload, type JsonValue } from './actionpass/action.js';
export { generateSigningKey, signingKeyFromSeed, publicKeyInfo, readKeyFile, writeKeyFile, loadOrCreateKey, verifySignature, type SigningKey, type PublicKeyInfo } from './actionpass/keys.js';
export { signCompactJws, parseCompactJws } from './actionpass/jws.js';
export { issueActionPass, verifyActionPass, ACTIONPASS_TYP, type ActionPassClaims, type PassCheck, type PassExpectations, type PassRefusal } from './actionpass/actionpass-token.js';
export { signApprovalArtifact, verifyApprovalArtifact, APPROVAL_TYP, type ApprovalClaims, type ApprovalCheck } from './actionpass/approval-artifact.js';
export { readTrustStore, writeTrustStore, TrustIndex, type TrustStore, type TrustedKeyEntry } from './actionpass/trust-store.js';
export { loadPassSigner, rotatePassKey, revokeKey, addReviewer, loadReviewerKey, reviewerKeysDir } from './actionpass/key-ring.js';
export { createSvc, type SvcClient, type CreateSvcOptions } from './actionpass/sdk.js';
export { SvcError } from './errors.js';
