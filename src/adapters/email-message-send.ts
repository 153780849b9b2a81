import * as z from 'zod';
import { MAX_STRING_LENGTH, type JsonValue } from '../actionpass/action.js';
import { outboxHandler } from './outbox-delivery.js';
import { hasExactlyKeys, isTextField, text } from './payload-fields.js';
import type { ToolHandler } from './tool-handler.js';

/**
 * `email.message.send` on `mailbox:<address>`, payload exactly `{ to, subject, body }`. Each
 * message lands in `<outbox>/email/<to>/<ts>-<actionId>.json`.
 *
 * A "plain" address is `local@domain` without display name, quotes, comments or IP literals: the
 * local part is dot-separated runs of letters, digits, `_`, `+`, `-`; the domain has at least two
 * DNS labels. That is narrower than RFC 5321 on purpose: the address is also a directory name and
 * a policy key, and one spelling per mailbox keeps rules on `mailbox:` from being sidestepped.
 * `to` must equal the resource exactly (case included) for the same reason.
 */
export const EMAIL_TOOL = 'email.message.send';
/** RFC 5322's line limit: a longer subject would have to be folded. */
export const EMAIL_SUBJECT_MAX = 998;
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const PLAIN_ADDRESS = new RegExp(`^(?=.{3,254}$)(?=[^@]{1,64}@)[A-Za-z0-9_+-]+(?:\\.[A-Za-z0-9_+-]+)*@${LABEL}(?:\\.${LABEL})+$`);
const EXPECTED = 'expected mailbox:<address> with a plain email address such as ana@example.com';

// One line: a line break in a subject is how header injection starts.
const EMAIL_SUBJECT = { max: EMAIL_SUBJECT_MAX, singleLine: true };
const EMAIL_BODY = { max: MAX_STRING_LENGTH };

export const emailPayload = z.strictObject({
  to: z.string({ error: 'expected a string' }),
  subject: text(EMAIL_SUBJECT),
  body: text(EMAIL_BODY),
});

const EMAIL_KEYS = ['to', 'subject', 'body'] as const;

/** `emailPayload` by hand, for the request path; undefined leaves the payload to zod. */
export function readEmailPayload(payload: { [key: string]: JsonValue }): z.infer<typeof emailPayload> | undefined {
  const { to, subject, body } = payload;
  if (!hasExactlyKeys(payload, EMAIL_KEYS) || typeof to !== 'string' || !isTextField(subject, EMAIL_SUBJECT) || !isTextField(body, EMAIL_BODY)) return undefined;
  return { to, subject, body };
}

export function emailMessageSend(options: { outboxDir: string; now: () => number }): ToolHandler {
  return outboxHandler({ tool: EMAIL_TOOL, kind: 'email', recipientNoun: 'address', resourceKind: 'mailbox', recipientPattern: PLAIN_ADDRESS, expected: EXPECTED, payloadSchema: emailPayload, readPayload: readEmailPayload, recipientField: 'to', ...options });
}
