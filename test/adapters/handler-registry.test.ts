import { describe, expect, it } from 'vitest';
import { demoHandlers } from '../../src/adapters/demo-handlers.js';
import { HandlerRegistry } from '../../src/adapters/handler-registry.js';
import type { ToolHandler } from '../../src/adapters/tool-handler.js';
import { hashCanonical } from '../../src/events/canonical.js';
import { SvcError } from '../../src/errors.js';

function stubHandler(tool: string): ToolHandler {
  return {
    tool,
    validate: () => undefined,
    execute: async () => ({ outcome: 'succeeded', executedPayloadHash: hashCanonical({}), resultHash: hashCanonical(null), result: null }),
  };
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof SvcError ? error.code : 'not an SvcError';
  }
  return undefined;
}

describe('HandlerRegistry', () => {
  it('registers, finds and lists handlers (sorted), chaining register', () => {
    const a = stubHandler('ticket.issue.create');
    const b = stubHandler('chat.message.send');
    const registry = new HandlerRegistry().register(a).register(b);
    expect(registry.get('ticket.issue.create')).toBe(a);
    expect(registry.get('chat.message.send')).toBe(b);
    expect(registry.get('chat.message.delete')).toBeUndefined();
    expect(registry.tools()).toEqual(['chat.message.send', 'ticket.issue.create']);
  });

  it('refuses a second handler for the same tool instead of replacing the first', () => {
    const first = stubHandler('chat.message.send');
    const registry = new HandlerRegistry().register(first);
    expect(codeOf(() => registry.register(stubHandler('chat.message.send')))).toBe('adapter_handler_duplicate');
    expect(registry.get('chat.message.send')).toBe(first);
  });

  it('refuses malformed tool names and handlers without the contract methods', () => {
    const registry = new HandlerRegistry();
    expect(codeOf(() => registry.register(stubHandler('send')))).toBe('adapter_handler_invalid');
    expect(codeOf(() => registry.register(stubHandler('Chat.message.send')))).toBe('adapter_handler_invalid');
    expect(codeOf(() => registry.register({ tool: 'chat.message.send' } as unknown as ToolHandler))).toBe('adapter_handler_invalid');
    expect(registry.tools()).toEqual([]);
  });

  it('finds nothing for names of Object.prototype members', () => {
    const registry = new HandlerRegistry().register(stubHandler('chat.message.send'));
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) expect(registry.get(name)).toBeUndefined();
  });
});

describe('demoHandlers', () => {
  it('returns the three demo tools, which a registry accepts', () => {
    const handlers = demoHandlers({ outboxDir: '/tmp/svc-outbox', sandboxDir: '/tmp/svc-sandbox' });
    const registry = new HandlerRegistry();
    for (const handler of handlers) registry.register(handler);
    expect(registry.tools()).toEqual(['chat.message.send', 'email.message.send', 'fs.file.write']);
  });

  it('requires absolute directories', () => {
    expect(codeOf(() => demoHandlers({ outboxDir: '.svc/outbox', sandboxDir: '/tmp/s' }))).toBe('adapter_config_invalid');
    expect(codeOf(() => demoHandlers({ outboxDir: '/tmp/o', sandboxDir: '' }))).toBe('adapter_config_invalid');
    expect(codeOf(() => demoHandlers({ outboxDir: '/tmp/o', sandboxDir: 'sandbox' }))).toBe('adapter_config_invalid');
  });
});
