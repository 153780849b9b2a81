import { z } from 'zod';
import { MAX_STRING_LENGTH } from '../actionpass/action.js';
import { ADAPTER_CODES } from './adapter-codes.js';
import { payloadSchemaIssues, type CodedIssue } from './handler-issues.js';
import { deliverToOutbox } from './outbox-delivery.js';
import { outboxNameIssue } from './outbox-names.js';
import { parsedHandler } from './parsed-handler.js';
import { resourceName, text } from './payload-fields.js';
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

const emailPayload = z.strictObject({
  to: z.string({ error: 'expected a string' }),
  // One line: a line break in a subject is how header injection starts.
  subject: text({ max: EMAIL_SUBJECT_MAX, singleLine: true }),
  body: text({ max: MAX_STRING_LENGTH }),
});

export function emailMessageSend(options: { outboxDir: string; now: () => number }): ToolHandler {
  return parsedHandler({
    tool: EMAIL_TOOL,
    parse(action) {
      const issues: CodedIssue[] = [];
      const address = resourceName(action.capability.resource, 'mailbox');
      if (address === undefined) issues.push({ code: ADAPTER_CODES.resourceInvalid, path: 'capability.resource', message: EXPECTED });
      else {
        const issue = outboxNameIssue(address, PLAIN_ADDRESS, EXPECTED);
        if (issue !== undefined) issues.push(issue);
      }
      const payload = emailPayload.safeParse(action.capability.payload);
      if (!payload.success) issues.push(...payloadSchemaIssues(payload.error));
      else if (address !== undefined && payload.data.to !== address) {
        issues.push({ code: ADAPTER_CODES.resourceMismatch, path: 'capability.payload.to', message: `must equal the resource's address "${address}"` });
      }
      if (issues.length > 0 || !payload.success || address === undefined) return { ok: false, issues };
      return { ok: true, value: { address, payload: payload.data } };
    },
    run: (call, context) => deliverToOutbox(options.outboxDir, options.now, { kind: 'email', recipient: call.address, payload: call.payload }, context),
  });
}
