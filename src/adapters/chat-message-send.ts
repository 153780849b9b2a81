import * as z from 'zod';
import type { JsonValue } from '../actionpass/action.js';
import { outboxHandler } from './outbox-delivery.js';
import { hasExactlyKeys, isTextField, text } from './payload-fields.js';
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

export const chatPayload = z.strictObject({
  channel: z.string({ error: 'expected a string' }),
  text: text({ min: 1, max: CHAT_TEXT_MAX }),
});

const CHAT_KEYS = ['channel', 'text'] as const;
const CHAT_TEXT = { min: 1, max: CHAT_TEXT_MAX };

/** `chatPayload` by hand, for the request path; undefined leaves the payload to zod. */
export function readChatPayload(payload: { [key: string]: JsonValue }): z.infer<typeof chatPayload> | undefined {
  const { channel, text: body } = payload;
  if (!hasExactlyKeys(payload, CHAT_KEYS) || typeof channel !== 'string' || !isTextField(body, CHAT_TEXT)) return undefined;
  return { channel, text: body };
}

export function chatMessageSend(options: { outboxDir: string; now: () => number }): ToolHandler {
  return outboxHandler({ tool: CHAT_TOOL, kind: 'chat', recipientNoun: 'channel', resourceKind: 'channel', recipientPattern: CHANNEL, expected: EXPECTED, payloadSchema: chatPayload, readPayload: readChatPayload, recipientField: 'channel', ...options });
}
