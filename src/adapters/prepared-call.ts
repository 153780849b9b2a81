import type { JsonValue } from '../actionpass/action.js';
import { canonicalJson, sha256Bytes, toSha256 } from '../events/canonical.js';
import { SvcError } from '../errors.js';
import { ADAPTER_CODES } from './adapter-codes.js';
import type { PreparedCall } from './tool-handler.js';

/**
 * The bytes a demo handler hands to its "provider": the RFC 8785 form of the payload it delivers,
 * as UTF-8. The hash is taken of those very bytes, not recomputed from the object, so the
 * executed half of the equivalence pair describes what was sent even if a later handler changes
 * how it serializes.
 */
export function prepareCanonicalCall(payload: { [key: string]: JsonValue }): PreparedCall {
  let text: string;
  try {
    text = canonicalJson(payload);
  } catch (error) {
    throw new SvcError(ADAPTER_CODES.payloadNotCanonical, `the payload has no RFC 8785 form: ${(error as Error).message}`, { cause: error });
  }
  const bytes = Buffer.from(text, 'utf8');
  return { bytes, executedPayloadHash: toSha256(sha256Bytes(bytes)) };
}
