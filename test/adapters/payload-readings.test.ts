import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/actionpass/action.js';
import { chatPayload, readChatPayload } from '../../src/adapters/chat-message-send.js';
import { emailPayload, readEmailPayload } from '../../src/adapters/email-message-send.js';

/**
 * The demo handlers read their payloads by hand on the request path and go to zod only for what
 * they do not accept; zod stays the reference. A reading must never accept what its schema
 * refuses, and must return what zod's copy holds.
 */

type Payload = { [key: string]: JsonValue };

const oddText = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.constantFrom('', 'a', 'eng', 'line\nbreak', 'tab\there', '\u2028', '\ud800', 'x\udc00', '😀', '😀'.repeat(2000), '😀'.repeat(2001), 'x'.repeat(3999), 'x'.repeat(4000), 'x'.repeat(4001), 'x'.repeat(998), 'x'.repeat(999), 'x'.repeat(16_385)),
);
const oddValue: fc.Arbitrary<JsonValue | undefined> = fc.oneof(oddText, oddText, fc.constant(undefined), fc.constantFrom(null, 0, 1, true, [], {}, ['x']));

function mutated(base: Payload, keys: readonly string[]) {
  return fc.record({ key: fc.constantFrom(...keys, 'extra'), value: oddValue, remove: fc.boolean(), twice: fc.option(fc.tuple(fc.constantFrom(...keys), oddValue)) }).map(({ key, value, remove, twice }) => {
    const payload: Payload = { ...base };
    if (value === undefined && remove) delete payload[key];
    else payload[key] = value as JsonValue;
    if (twice && twice[1] !== undefined) payload[twice[0]] = twice[1];
    return payload;
  });
}

describe('hand-written payload readings', () => {
  for (const { name, schema, read, base, keys } of [
    { name: 'chat.message.send', schema: chatPayload, read: readChatPayload as (payload: Payload) => unknown, base: { channel: 'eng', text: 'deploy finished' }, keys: ['channel', 'text'] },
    { name: 'email.message.send', schema: emailPayload, read: readEmailPayload as (payload: Payload) => unknown, base: { to: 'ana@acme.example', subject: 'Deploy', body: 'done\nthanks' }, keys: ['to', 'subject', 'body'] },
  ]) {
    it(`${name}: accepts the usual payload as zod reads it`, () => {
      const reading = read(base);
      expect(reading).toBeDefined();
      expect(reading).toEqual(schema.parse(base));
    });

    it(`${name}: gives zod's verdict and value on 3,000 mutated payloads`, () => {
      fc.assert(
        fc.property(mutated(base, keys), (payload) => {
          const reading = read(payload);
          const reference = schema.safeParse(payload);
          if (reading !== undefined) {
            expect(reference.success).toBe(true);
            expect(reading).toEqual(reference.data);
          }
        }),
        { numRuns: 3_000, seed: 5 },
      );
    });
  }
});
