import { ADAPTER_CODES } from './adapter-codes.js';
import type { CodedIssue } from './handler-issues.js';
import { safeFileName } from './safe-file-name.js';

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
