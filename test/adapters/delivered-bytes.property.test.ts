import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { demoHandlers } from '../../src/adapters/demo-handlers.js';
import { prepareCanonicalCall } from '../../src/adapters/prepared-call.js';
import type { ToolHandler } from '../../src/adapters/tool-handler.js';
import { canonicalJson, hashCanonical } from '../../src/events/canonical.js';
import { FIXED_NOW, FIXED_STAMP, action, recordingContext, sha256Of, tempDir } from './support.js';

// Well-formed Unicode of every kind, line breaks and quotes included; lone surrogates are refused by design.
const anyText = (minLength: number, maxLength: number) => fc.string({ unit: 'grapheme', minLength, maxLength });
const channel = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,20}$/);
const address = fc
  .tuple(fc.stringMatching(/^[A-Za-z0-9_+-]{1,10}(\.[A-Za-z0-9_+-]{1,5})?$/), fc.stringMatching(/^[a-z0-9]{1,10}\.(com|org|example)$/))
  .map(([local, domain]) => `${local}@${domain}`);
const segment = fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,8}$/).filter((name) => name !== '.' && name !== '..');
const relativePath = fc.array(segment, { minLength: 1, maxLength: 4 }).map((segments) => segments.join('/'));

async function setup(): Promise<{ outboxDir: string; sandboxDir: string; handlers: Map<string, ToolHandler> }> {
  const base = await tempDir();
  const outboxDir = path.join(base, 'outbox');
  const sandboxDir = path.join(base, 'sandbox');
  const handlers = new Map(demoHandlers({ outboxDir, sandboxDir, now: () => FIXED_NOW }).map((handler) => [handler.tool, handler]));
  return { outboxDir, sandboxDir, handlers };
}

function filesIn(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true }).map(String);
  } catch {
    return [];
  }
}

describe('delivered bytes hash to executedPayloadHash (property)', () => {
  it('chat and email: the delivered file is JCS(payload), its sha256 is the hash verified, and nothing is written before verification', async () => {
    const { outboxDir, handlers } = await setup();
    let counter = 0;
    const message = fc.oneof(
      fc.record({ channel, text: anyText(1, 300) }).map((payload) => ({ tool: 'chat.message.send', resource: `channel:${payload.channel}`, payload, kind: 'chat', recipient: payload.channel })),
      fc.record({ to: address, subject: fc.string({ unit: 'grapheme-ascii', maxLength: 80 }).map((s) => s.replace(/[\0-\x1f\x7f]/g, ' ')), body: anyText(0, 500) }).map((payload) => ({
        tool: 'email.message.send',
        resource: `mailbox:${payload.to}`,
        payload,
        kind: 'email',
        recipient: payload.to,
      })),
    );
    await fc.assert(
      fc.asyncProperty(message, async ({ tool, resource, payload, kind, recipient }) => {
        const handler = handlers.get(tool);
        if (handler === undefined) throw new Error(`no handler for ${tool}`);
        const request = action(tool, resource, payload);
        expect(handler.validate(request)).toBeUndefined();
        const actionId = `act_${(counter += 1)}`;
        const before = filesIn(outboxDir).length;
        const context = recordingContext(actionId, () => expect(filesIn(outboxDir)).toHaveLength(before));
        const result = await handler.execute(request, context);
        const delivered = await readFile(path.join(outboxDir, kind, recipient, `${FIXED_STAMP}-${actionId}.json`));
        expect(delivered.toString('utf8')).toBe(canonicalJson(payload));
        expect(sha256Of(delivered)).toBe(result.executedPayloadHash);
        expect(context.verified).toEqual([result.executedPayloadHash]);
        expect(result.executedPayloadHash).toBe(hashCanonical(payload));
      }),
      { numRuns: 150 },
    );
  });

  it('fs.file.write: the hash verified is sha256 of the prepared JCS request, and the file holds exactly its content', async () => {
    const { sandboxDir, handlers } = await setup();
    const handler = handlers.get('fs.file.write');
    if (handler === undefined) throw new Error('no fs.file.write handler');
    await fc.assert(
      fc.asyncProperty(relativePath, anyText(0, 500), async (filePath, content) => {
        const request = action('fs.file.write', `file:${filePath}`, { path: filePath, content });
        // Random paths can collide with an earlier file used as a directory; those are refused, not written.
        if (handler.validate(request) !== undefined) return;
        const context = recordingContext();
        let result;
        try {
          result = await handler.execute(request, context);
        } catch (error) {
          expect((error as { code?: string }).code).toMatch(/^sandbox_(not_directory|target_not_file)$/);
          expect(context.verified).toEqual([]);
          return;
        }
        expect(result.outcome).toBe('succeeded');
        expect(context.verified).toEqual([sha256Of(prepareCanonicalCall({ path: filePath, content }).bytes)]);
        expect(result.executedPayloadHash).toBe(hashCanonical({ path: filePath, content }));
        expect(await readFile(path.join(sandboxDir, ...filePath.split('/')), 'utf8')).toBe(content);
      }),
      { numRuns: 150 },
    );
  });

  it('prepareCanonicalCall: the bytes are JCS and the hash is theirs, for arbitrary JSON payloads', () => {
    const json = fc.jsonValue({ maxDepth: 4 });
    fc.assert(
      fc.property(fc.dictionary(fc.string(), json, { maxKeys: 8 }), (payload) => {
        const call = prepareCanonicalCall(payload as never);
        expect(call.bytes.toString('utf8')).toBe(canonicalJson(payload));
        expect(call.executedPayloadHash).toBe(sha256Of(call.bytes));
        expect(call.executedPayloadHash).toBe(hashCanonical(payload));
      }),
      { numRuns: 2000 },
    );
  });
});
