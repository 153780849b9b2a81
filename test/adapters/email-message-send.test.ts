import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { emailMessageSend } from '../../src/adapters/email-message-send.js';
import { hashCanonical } from '../../src/events/canonical.js';
import { SvcError } from '../../src/errors.js';
import { FIXED_NOW, FIXED_STAMP, action, listTree, recordingContext, rejectionCode, sha256Of, tempDir } from './support.js';

async function setup() {
  const base = await tempDir();
  const outboxDir = path.join(base, 'outbox');
  return { base, outboxDir, handler: emailMessageSend({ outboxDir, now: () => FIXED_NOW }) };
}

const message = { to: 'ana@example.com', subject: 'Q3 numbers', body: 'Attached are the Q3 numbers.\n— Bo' };

describe('email.message.send', () => {
  it('delivers exactly JCS(payload) to <outbox>/email/<to>/<ts>-<actionId>.json and reports its hash', async () => {
    const { outboxDir, handler } = await setup();
    const context = recordingContext('act_7');
    const result = await handler.execute(action('email.message.send', 'mailbox:ana@example.com', message), context);

    const relative = `email/ana@example.com/${FIXED_STAMP}-act_7.json`;
    const delivered = await readFile(path.join(outboxDir, relative));
    expect(delivered.toString('utf8')).toBe('{"body":"Attached are the Q3 numbers.\\n— Bo","subject":"Q3 numbers","to":"ana@example.com"}');
    expect(result.outcome).toBe('succeeded');
    expect(result.executedPayloadHash).toBe(hashCanonical(message));
    expect(sha256Of(delivered)).toBe(result.executedPayloadHash);
    expect(context.verified).toEqual([result.executedPayloadHash]);
    expect(result.result).toEqual({ path: relative, bytes: delivered.length });
    expect(result.resultHash).toBe(hashCanonical(result.result));
    // No payload body in the result.
    expect(JSON.stringify(result.result)).not.toContain('Q3');
  });

  it('writes nothing when verification throws', async () => {
    const { base, handler } = await setup();
    const context = recordingContext('act_1', () => {
      throw new SvcError('approval_payload_hash_mismatch', 'approved content differs');
    });
    expect(await rejectionCode(handler.execute(action('email.message.send', 'mailbox:ana@example.com', message), context))).toBe('approval_payload_hash_mismatch');
    expect(await listTree(base)).toEqual([]);
  });

  it('keeps a second message to the same mailbox beside the first', async () => {
    const { outboxDir, handler } = await setup();
    await handler.execute(action('email.message.send', 'mailbox:ana@example.com', message), recordingContext('act_1'));
    await handler.execute(action('email.message.send', 'mailbox:ana@example.com', { ...message, body: 'again' }), recordingContext('act_2'));
    expect(await listTree(path.join(outboxDir, 'email', 'ana@example.com'))).toEqual([`${FIXED_STAMP}-act_1.json`, `${FIXED_STAMP}-act_2.json`]);
  });

  it.each([
    ['mailbox:../../etc@example.com', 'outbox_name_unsafe'],
    ['mailbox:a/b@example.com', 'outbox_name_unsafe'],
    ['mailbox:..', 'outbox_name_unsafe'],
    ['mailbox:Ana <ana@example.com>', 'adapter_resource_invalid'],
    ['mailbox:ana@localhost', 'adapter_resource_invalid'],
    ['mailbox:.ana@example.com', 'adapter_resource_invalid'],
    ['mailbox:a..b@example.com', 'adapter_resource_invalid'],
    ['mailbox:"a b"@example.com', 'adapter_resource_invalid'],
    ['user:ana@example.com', 'adapter_resource_invalid'],
  ])('refuses resource %s with %s before verification, writing nothing', async (resource, code) => {
    const { base, handler } = await setup();
    const to = resource.slice(resource.indexOf(':') + 1);
    const context = recordingContext();
    expect(await rejectionCode(handler.execute(action('email.message.send', resource, { ...message, to }), context))).toBe(code);
    expect(context.verified).toEqual([]);
    expect(await listTree(base)).toEqual([]);
  });

  it('encodes an action id with `/` and `..`, so the delivery never leaves the mailbox directory', async () => {
    const { outboxDir, handler } = await setup();
    const result = await handler.execute(action('email.message.send', 'mailbox:ana@example.com', message), recordingContext('../../x'));
    expect(result.result).toEqual({ path: `email/ana@example.com/${FIXED_STAMP}-%2E.%2F..%2Fx.json`, bytes: expect.any(Number) });
    expect(await listTree(outboxDir)).toHaveLength(3);
  });

  describe('validate', () => {
    const validate = (resource: string, payload: Record<string, unknown>) =>
      emailMessageSend({ outboxDir: '/nonexistent', now: () => 0 }).validate(action('email.message.send', resource, payload as never));

    it('accepts plain addresses', () => {
      for (const to of ['ana@example.com', 'ana.bo+svc@mail.example.co.uk', 'A_B-c@x-y.example']) {
        expect(validate(`mailbox:${to}`, { ...message, to })).toBeUndefined();
      }
    });

    it('catches a `to` that differs from the resource, case included', () => {
      expect(validate('mailbox:ana@example.com', { ...message, to: 'eve@evil.example' })).toEqual([{ path: 'capability.payload.to', message: expect.stringContaining('ana@example.com') }]);
      expect(validate('mailbox:ana@example.com', { ...message, to: 'Ana@example.com' })?.[0]?.path).toBe('capability.payload.to');
    });

    it.each([
      ['an extra key', { ...message, cc: 'eve@evil.example' }, 'capability.payload'],
      ['a missing body', { to: message.to, subject: message.subject }, 'capability.payload.body'],
      ['a subject of the wrong type', { ...message, subject: 1 }, 'capability.payload.subject'],
      ['a body of the wrong type', { ...message, body: { html: '<b>' } }, 'capability.payload.body'],
      ['a `to` of the wrong type', { ...message, to: ['ana@example.com'] }, 'capability.payload.to'],
      ['a line break in the subject (header injection)', { ...message, subject: 'hi\r\nBcc: eve@evil.example' }, 'capability.payload.subject'],
      ['a subject over 998 characters', { ...message, subject: 's'.repeat(999) }, 'capability.payload.subject'],
    ])('catches %s', (_name, payload, issuePath) => {
      expect(validate('mailbox:ana@example.com', payload)?.map((issue) => issue.path)).toContain(issuePath);
    });
  });
});
