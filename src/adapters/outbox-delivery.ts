import type { JsonValue } from '../actionpass/action.js';
import { checkConfinedTarget, writeConfined, type ConfinedTarget } from './confined-write.js';
import { performVerified } from './perform-verified.js';
import { prepareCanonicalCall } from './prepared-call.js';
import type * as z from 'zod';
import { ADAPTER_CODES } from './adapter-codes.js';
import { payloadSchemaIssues, type CodedIssue } from './handler-issues.js';
import { deliveryFileName, outboxNameIssue } from './outbox-names.js';
import { parsedHandler } from './parsed-handler.js';
import { resourceName } from './payload-fields.js';
import type { ExecutionResult, HandlerContext, ToolHandler } from './tool-handler.js';

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
  // Read-only, before verification: an unsafe outbox refuses the call before anything is written.
  await checkConfinedTarget(target);
  return performVerified(context, call, async (bytes) => {
    await writeConfined(target, bytes, 0o600);
    return { path: target.segments.join('/'), bytes: bytes.length };
  });
}

/**
 * A handler whose resource `<resourceKind>:<recipient>` names where the message goes, and whose
 * payload repeats the recipient in `recipientField`: chat (channel) and email (mailbox).
 */
export function outboxHandler<P extends { [key: string]: JsonValue }>(spec: {
  tool: string;
  kind: string;
  resourceKind: string;
  /** What the recipient is called in messages: channel, address. */
  recipientNoun: string;
  recipientPattern: RegExp;
  expected: string;
  payloadSchema: z.ZodType<P>;
  /**
   * `payloadSchema` written out by hand: the payload as zod's copy would hold it when zod accepts
   * it, else undefined for zod to decide and word the issues. Its test holds it to the schema.
   */
  readPayload: (payload: { [key: string]: JsonValue }) => P | undefined;
  recipientField: keyof P & string;
  outboxDir: string;
  now: () => number;
}): ToolHandler {
  return parsedHandler({
    tool: spec.tool,
    parse(action) {
      const issues: CodedIssue[] = [];
      const recipient = resourceName(action.capability.resource, spec.resourceKind);
      if (recipient === undefined) issues.push({ code: ADAPTER_CODES.resourceInvalid, path: 'capability.resource', message: spec.expected });
      else {
        const issue = outboxNameIssue(recipient, spec.recipientPattern, spec.expected);
        if (issue !== undefined) issues.push(issue);
      }
      const read = spec.readPayload(action.capability.payload);
      const payload = read !== undefined ? ({ success: true, data: read } as const) : spec.payloadSchema.safeParse(action.capability.payload);
      if (!payload.success) issues.push(...payloadSchemaIssues(payload.error));
      else if (recipient !== undefined && payload.data[spec.recipientField] !== recipient) {
        issues.push({ code: ADAPTER_CODES.resourceMismatch, path: `capability.payload.${spec.recipientField}`, message: `must equal the resource's ${spec.recipientNoun} "${recipient}"` });
      }
      if (issues.length > 0 || !payload.success || recipient === undefined) return { ok: false, issues };
      return { ok: true, value: { recipient, payload: payload.data } };
    },
    run: (call, context) => deliverToOutbox(spec.outboxDir, spec.now, { kind: spec.kind, recipient: call.recipient, payload: call.payload }, context),
  });
}
