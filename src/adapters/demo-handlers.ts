import path from 'node:path';
import { SvcError } from '../errors.js';
import { ADAPTER_CODES } from './adapter-codes.js';
import { chatMessageSend } from './chat-message-send.js';
import { emailMessageSend } from './email-message-send.js';
import { fsFileWrite } from './fs-file-write.js';
import type { ToolHandler } from './tool-handler.js';

/**
 * The three handlers that work without credentials and leave effects anyone can look at on this
 * machine: chat and email messages as files in the outbox, file writes inside the sandbox.
 * Both directories must be absolute (config resolves `adapters.outbox` and `adapters.sandbox`
 * against svc.yml): a relative one would depend on the process's working directory.
 */
export function demoHandlers(options: { outboxDir: string; sandboxDir: string; now?: () => number }): ToolHandler[] {
  const outboxDir = absoluteDirectory(options.outboxDir, 'outboxDir');
  const sandboxDir = absoluteDirectory(options.sandboxDir, 'sandboxDir');
  const now = options.now ?? Date.now;
  return [chatMessageSend({ outboxDir, now }), emailMessageSend({ outboxDir, now }), fsFileWrite({ sandboxDir })];
}

function absoluteDirectory(directory: string, name: string): string {
  if (directory.length === 0 || directory.includes('\0') || !path.isAbsolute(directory)) {
    throw new SvcError(ADAPTER_CODES.configInvalid, `${name} must be an absolute directory path`);
  }
  return path.resolve(directory);
}
