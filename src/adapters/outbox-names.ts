import { SvcError } from '../errors.js';
import { ADAPTER_CODES } from './adapter-codes.js';
import type { CodedIssue } from './handler-issues.js';

/** The names outbox deliveries get: a directory per channel or mailbox, a file per delivery. */

/**
 * Turns a channel name, mailbox address or action id into one file name that cannot leave its
 * directory. The handlers' schemas already refuse such names; this is the second line, so a
 * schema loosened later still cannot produce `..`, a `/` or a hidden file.
 *
 * Every UTF-8 byte outside `[A-Za-z0-9._@+-]` is written as `%XX`, and so is a leading dot, so the
 * mapping is injective (two different names never share a file) and the result never starts with
 * a dot: it cannot be `.` or `..`, and never collides with the handlers' `.svc-*.tmp` files.
 */
const SAFE_BYTE = /^[A-Za-z0-9._@+-]$/;
/** Most file systems cap one name at 255 bytes. */
const MAX_NAME_BYTES = 255;

export function safeFileName(name: string): string | undefined {
  if (name.length === 0) return undefined;
  let out = '';
  for (const byte of Buffer.from(name, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += byte < 0x80 && SAFE_BYTE.test(char) && !(out.length === 0 && char === '.') ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out.length <= MAX_NAME_BYTES ? out : undefined;
}

/**
 * Checks a channel name or mailbox address that becomes a directory name in the outbox. Names
 * that try to leave it (a `/`, a `\`, a `.` or `..` segment) get their own code, so an attempted
 * escape is told apart from a typo; anything else outside `pattern` is a malformed resource.
 */
export function outboxNameIssue(name: string, pattern: RegExp, expected: string): CodedIssue | undefined {
  const path = 'capability.resource';
  if (/[/\\]/.test(name) || name.split(/[/\\]/).some((segment) => segment === '.' || segment === '..')) {
    return { code: ADAPTER_CODES.outboxNameUnsafe, path, message: `"${name}" would leave the outbox directory: ${expected}` };
  }
  if (!pattern.test(name)) return { code: ADAPTER_CODES.resourceInvalid, path, message: expected };
  if (safeFileName(name) !== name) return { code: ADAPTER_CODES.outboxNameUnsafe, path, message: `"${name}" is not a safe file name: ${expected}` };
  return undefined;
}

/**
 * `<ts>-<actionId>.json`, ts in ISO 8601 basic format (`20261121T100000.000Z`): sorts by time,
 * reads like the ledger's timestamps, and has no `:` for file systems that refuse one.
 */
export function deliveryFileName(timeMs: number, actionId: string): string {
  const stamp = new Date(timeMs).toISOString().replaceAll('-', '').replaceAll(':', '');
  const id = safeFileName(actionId);
  if (id === undefined) throw new SvcError(ADAPTER_CODES.outboxNameUnsafe, 'the action id cannot be part of a file name');
  const name = `${stamp}-${id}.json`;
  if (name.length > 255) throw new SvcError(ADAPTER_CODES.outboxNameUnsafe, 'the action id is too long to be part of a file name');
  return name;
}
