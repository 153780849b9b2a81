import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { lstat, mkdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chatMessageSend } from '../../src/adapters/chat-message-send.js';
import { hashCanonical } from '../../src/events/canonical.js';
import { SvcError } from '../../src/errors.js';
import { FIXED_NOW, FIXED_STAMP, action, listTree, recordingContext, rejectionCode, sha256Of, tempDir } from './support.js';

async function setup() {
  const base = await tempDir();
  const outboxDir = path.join(base, 'outbox');
  return { base, outboxDir, handler: chatMessageSend({ outboxDir, now: () => FIXED_NOW }) };
}

describe('chat.message.send', () => {
  it('delivers exactly JCS(payload) to <outbox>/chat/<channel>/<ts>-<actionId>.json and reports its hash', async () => {
    const { outboxDir, handler } = await setup();
    // Keys out of order on purpose: the delivery is the canonical form, not the caller's spelling.
    const payload = { text: 'Deploy done ✅ — "v2"\n', channel: 'eng' };
    const context = recordingContext('act_42');
    const result = await handler.execute(action('chat.message.send', 'channel:eng', payload), context);

    const file = path.join(outboxDir, 'chat', 'eng', `${FIXED_STAMP}-act_42.json`);
    const delivered = await readFile(file);
    expect(delivered.toString('utf8')).toBe('{"channel":"eng","text":"Deploy done ✅ — \\"v2\\"\\n"}');
    expect(result.executedPayloadHash).toBe(hashCanonical(payload));
    expect(sha256Of(delivered)).toBe(result.executedPayloadHash);
    expect(context.verified).toEqual([result.executedPayloadHash]);
    expect(result).toEqual({
      outcome: 'succeeded',
      executedPayloadHash: result.executedPayloadHash,
      result: { path: `chat/eng/${FIXED_STAMP}-act_42.json`, bytes: delivered.length },
      resultHash: hashCanonical({ path: `chat/eng/${FIXED_STAMP}-act_42.json`, bytes: delivered.length }),
    });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // Temp files are renamed, never left behind.
    expect(await listTree(outboxDir)).toEqual(['chat', 'chat/eng', `chat/eng/${FIXED_STAMP}-act_42.json`]);
  });

  it('writes nothing at all when verification throws, and propagates the verifier error', async () => {
    const { base, handler } = await setup();
    const refused = new SvcError('actionpass_payload_hash_mismatch', 'the pass was issued for other content');
    const context = recordingContext('act_1', () => {
      throw refused;
    });
    await expect(handler.execute(action('chat.message.send', 'channel:eng', { channel: 'eng', text: 'hi' }), context)).rejects.toBe(refused);
    expect(context.verified).toHaveLength(1);
    expect(await listTree(base)).toEqual([]);
  });

  it.each([
    ['channel:../x', 'outbox_name_unsafe'],
    ['channel:..', 'outbox_name_unsafe'],
    ['channel:a/b', 'outbox_name_unsafe'],
    ['channel:a\\b', 'outbox_name_unsafe'],
    ['channel:../../../tmp/pwned', 'outbox_name_unsafe'],
    ['channel:.hidden', 'adapter_resource_invalid'],
    ['channel:#eng', 'adapter_resource_invalid'],
    ['room:eng', 'adapter_resource_invalid'],
  ])('refuses resource %s with %s before verification, writing nothing', async (resource, code) => {
    const { base, handler } = await setup();
    const channel = resource.slice(resource.indexOf(':') + 1);
    const request = action('chat.message.send', resource, { channel, text: 'hi' });
    expect(handler.validate(request)?.[0]?.path).toBe('capability.resource');
    const context = recordingContext();
    expect(await rejectionCode(handler.execute(request, context))).toBe(code);
    expect(context.verified).toEqual([]);
    expect(await listTree(base)).toEqual([]);
  });

  it('refuses a symlinked channel directory before verification and writes nothing through it', async () => {
    const { base, outboxDir, handler } = await setup();
    const elsewhere = path.join(base, 'elsewhere');
    await mkdir(elsewhere);
    await mkdir(path.join(outboxDir, 'chat'), { recursive: true });
    await symlink(elsewhere, path.join(outboxDir, 'chat', 'eng'));
    const context = recordingContext();
    expect(await rejectionCode(handler.execute(action('chat.message.send', 'channel:eng', { channel: 'eng', text: 'hi' }), context))).toBe('outbox_symlink');
    expect(context.verified).toEqual([]);
    expect(await listTree(elsewhere)).toEqual([]);
  });

  it('reports failed with outbox_symlink when a link is planted right after verification, writing nothing through it', async () => {
    const { base, outboxDir, handler } = await setup();
    const elsewhere = path.join(base, 'elsewhere');
    await mkdir(elsewhere);
    const context = recordingContext('act_1', () => {
      // Synchronous on purpose: this runs between verification and the first write.
      mkdirSync(path.join(outboxDir, 'chat'), { recursive: true });
      symlinkSync(elsewhere, path.join(outboxDir, 'chat', 'eng'));
    });
    const result = await handler.execute(action('chat.message.send', 'channel:eng', { channel: 'eng', text: 'hi' }), context);
    expect(result.outcome).toBe('failed');
    expect(result.error?.code).toBe('outbox_symlink');
    expect(result.result).toEqual({ error: 'outbox_symlink' });
    expect(result.resultHash).toBe(hashCanonical({ error: 'outbox_symlink' }));
    expect(await listTree(elsewhere)).toEqual([]);
  });

  it('reports failed with adapter_write_failed when the outbox cannot be written after verification', async () => {
    const { outboxDir, handler } = await setup();
    const context = recordingContext('act_1', () => {
      writeFileSync(outboxDir, 'not a directory');
    });
    const result = await handler.execute(action('chat.message.send', 'channel:eng', { channel: 'eng', text: 'hi' }), context);
    expect(result).toMatchObject({ outcome: 'failed', error: { code: 'adapter_write_failed' } });
    expect(result.error?.message).not.toContain(outboxDir);
    expect((await lstat(outboxDir)).isFile()).toBe(true);
    await rm(outboxDir);
  });

  it('refuses an outbox root that is not a directory before verification', async () => {
    const { outboxDir, handler } = await setup();
    await writeFile(outboxDir, 'x');
    const context = recordingContext();
    expect(await rejectionCode(handler.execute(action('chat.message.send', 'channel:eng', { channel: 'eng', text: 'hi' }), context))).toBe('outbox_not_directory');
    expect(context.verified).toEqual([]);
  });

  describe('validate', () => {
    const validate = (resource: string, payload: Record<string, unknown>, tool = 'chat.message.send') =>
      chatMessageSend({ outboxDir: '/nonexistent', now: () => 0 }).validate(action(tool, resource, payload as never));

    it('accepts a well-formed message, with 4000 characters counted as code points', () => {
      expect(validate('channel:eng', { channel: 'eng', text: 'hi' })).toBeUndefined();
      expect(validate('channel:eng', { channel: 'eng', text: '😀'.repeat(4000) })).toBeUndefined();
    });

    it.each([
      ['a channel that differs from the resource', { channel: 'ops', text: 'hi' }, 'capability.payload.channel'],
      ['an extra key', { channel: 'eng', text: 'hi', cc: 'ops' }, 'capability.payload'],
      ['a missing key', { channel: 'eng' }, 'capability.payload.text'],
      ['text of the wrong type', { channel: 'eng', text: 42 }, 'capability.payload.text'],
      ['a channel of the wrong type', { channel: ['eng'], text: 'hi' }, 'capability.payload.channel'],
      ['empty text', { channel: 'eng', text: '' }, 'capability.payload.text'],
      ['text over 4000 characters', { channel: 'eng', text: 'x'.repeat(4001) }, 'capability.payload.text'],
      ['a lone surrogate', { channel: 'eng', text: 'a\ud800b' }, 'capability.payload.text'],
    ])('catches %s', (_name, payload, issuePath) => {
      const issues = validate('channel:eng', payload);
      expect(issues?.map((issue) => issue.path)).toContain(issuePath);
      // The contract's shape exactly: no internal fields leak.
      for (const issue of issues ?? []) expect(Object.keys(issue).sort()).toEqual(['message', 'path']);
    });

    it('refuses an action for another tool', () => {
      expect(validate('channel:eng', { channel: 'eng', text: 'hi' }, 'chat.message.delete')).toEqual([{ path: 'capability.tool', message: expect.stringContaining('chat.message.send') }]);
    });

    it('execute refuses with the specific code of the first issue', async () => {
      const handler = chatMessageSend({ outboxDir: '/nonexistent', now: () => 0 });
      expect(await rejectionCode(handler.execute(action('chat.message.send', 'channel:eng', { channel: 'ops', text: 'hi' }), recordingContext()))).toBe('adapter_resource_mismatch');
      expect(await rejectionCode(handler.execute(action('chat.message.send', 'channel:eng', { channel: 'eng', text: 1 }), recordingContext()))).toBe('schema_invalid');
      expect(await rejectionCode(handler.execute(action('chat.message.post', 'channel:eng', { channel: 'eng', text: 'hi' }), recordingContext()))).toBe('adapter_tool_mismatch');
    });
  });
});
