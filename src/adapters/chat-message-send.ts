import { z } from 'zod';
import { ADAPTER_CODES } from './adapter-codes.js';
import { payloadSchemaIssues, type CodedIssue } from './handler-issues.js';
import { deliverToOutbox } from './outbox-delivery.js';
import { outboxNameIssue } from './outbox-names.js';
import { parsedHandler } from './parsed-handler.js';
import { resourceName, text } from './payload-fields.js';
import type { ToolHandler } from './tool-handler.js';

/**
 * `chat.message.send` on `channel:<name>`, payload exactly `{ channel, text }`. The demo "chat
 * service" is a directory: each message lands in `<outbox>/chat/<channel>/<ts>-<actionId>.json`.
 */
export const CHAT_TOOL = 'chat.message.send';
export const CHAT_TEXT_MAX = 4000;
/** Slack-like channel names: letters, digits, `.`, `_`, `-`, starting with a letter or digit. */
const CHANNEL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/;
const EXPECTED = 'expected channel:<name> with 1-80 letters, digits, ".", "_" or "-", starting with a letter or digit';

const chatPayload = z.strictObject({
  channel: z.string({ error: 'expected a string' }),
  text: text({ min: 1, max: CHAT_TEXT_MAX }),
});

export function chatMessageSend(options: { outboxDir: string; now: () => number }): ToolHandler {
  return parsedHandler({
    tool: CHAT_TOOL,
    parse(action) {
      const issues: CodedIssue[] = [];
      const channel = resourceName(action.capability.resource, 'channel');
      if (channel === undefined) issues.push({ code: ADAPTER_CODES.resourceInvalid, path: 'capability.resource', message: EXPECTED });
      else {
        const issue = outboxNameIssue(channel, CHANNEL, EXPECTED);
        if (issue !== undefined) issues.push(issue);
      }
      const payload = chatPayload.safeParse(action.capability.payload);
      if (!payload.success) issues.push(...payloadSchemaIssues(payload.error));
      else if (channel !== undefined && payload.data.channel !== channel) {
        issues.push({ code: ADAPTER_CODES.resourceMismatch, path: 'capability.payload.channel', message: `must equal the resource's channel "${channel}"` });
      }
      if (issues.length > 0 || !payload.success || channel === undefined) return { ok: false, issues };
      return { ok: true, value: { channel, payload: payload.data } };
    },
    run: (call, context) => deliverToOutbox(options.outboxDir, options.now, { kind: 'chat', recipient: call.channel, payload: call.payload }, context),
  });
}
