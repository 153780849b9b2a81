import type { JsonValue } from '../actionpass/action.js';
import { checkConfinedTarget, writeConfined, type ConfinedTarget } from './confined-write.js';
import { deliveryFileName } from './outbox-names.js';
import { performVerified } from './perform-verified.js';
import { prepareCanonicalCall } from './prepared-call.js';
import type { ExecutionResult, HandlerContext } from './tool-handler.js';

export interface OutboxMessage {
  /** `chat` or `email`: the first directory below the outbox. */
  kind: string;
  /** The channel or address, already checked to be one safe file name. */
  recipient: string;
  /** The payload delivered, exactly as validated. */
  payload: { [key: string]: JsonValue };
}

/**
 * Delivers a message as a file `<outbox>/<kind>/<recipient>/<ts>-<actionId>.json` whose bytes are
 * exactly the JCS form of the payload, so `sha256` of the file is the executed payload hash.
 * Outbox files are mode 0600: a message is meant for its recipient, not for every local user.
 */
export async function deliverToOutbox(outboxDir: string, now: () => number, message: OutboxMessage, context: HandlerContext): Promise<ExecutionResult> {
  const call = prepareCanonicalCall(message.payload);
  const target: ConfinedTarget = { area: 'outbox', root: outboxDir, segments: [message.kind, message.recipient, deliveryFileName(now(), context.actionId)] };
  // Read-only, before verification: an unsafe outbox refuses the call without spending the pass.
  await checkConfinedTarget(target);
  return performVerified(context, call, async (bytes) => {
    await writeConfined(target, bytes, 0o600);
    return { path: target.segments.join('/'), bytes: bytes.length };
  });
}
