import type { JsonValue } from '../actionpass/action.js';
import { hashCanonical } from '../events/canonical.js';
import { SvcError } from '../errors.js';
import { ADAPTER_CODES } from './adapter-codes.js';
import type { ExecutionResult, HandlerContext, PreparedCall } from './tool-handler.js';

/**
 * The one ordering every handler follows: verify the ActionPass against the hash of the prepared
 * bytes, then perform the side effect. Verification is synchronous and runs on the same tick as
 * the start of the side effect, so nothing can change the bytes in between. If it throws, the
 * error propagates and `sideEffect` never runs.
 *
 * After verification the pass is spent, so a failure of the side effect is an outcome the ledger
 * must record ('failed' with a code), not an exception the caller could mistake for "nothing
 * happened": a partial effect (a directory created, a temp file left behind) is possible.
 */
export async function performVerified(context: HandlerContext, call: PreparedCall, sideEffect: (bytes: Buffer) => Promise<JsonValue>): Promise<ExecutionResult> {
  context.verifyBeforeSideEffect(call.executedPayloadHash);
  try {
    const result = await sideEffect(call.bytes);
    return { outcome: 'succeeded', executedPayloadHash: call.executedPayloadHash, resultHash: hashCanonical(result), result };
  } catch (error) {
    const failure = describeFailure(error);
    // The result binds the failure code into resultHash, so the ledger says why without a body.
    const result: JsonValue = { error: failure.code };
    return { outcome: 'failed', executedPayloadHash: call.executedPayloadHash, resultHash: hashCanonical(result), result, error: failure };
  }
}

/**
 * Keeps failure messages to a code and an errno: Node's own messages quote absolute paths, and a
 * message is shown to agents and may be synced off the machine.
 */
function describeFailure(error: unknown): { code: string; message: string } {
  if (error instanceof SvcError) return { code: error.code, message: error.message };
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  return { code: ADAPTER_CODES.writeFailed, message: errno ? `the delivery could not be written (${errno})` : 'the delivery could not be written' };
}
