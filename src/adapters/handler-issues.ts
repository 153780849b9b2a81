import type * as z from 'zod';
import { SvcError } from '../errors.js';
import { ADAPTER_CODES } from './adapter-codes.js';
import type { HandlerIssue } from './tool-handler.js';

/**
 * An issue a handler found, with the stable code `execute` throws for it. `validate` hands out
 * only `path` and `message` (the contract's shape); `execute` refuses with the first issue's code,
 * so a caller that skipped `validate` still gets a specific reason, never a side effect.
 */
export interface CodedIssue extends HandlerIssue {
  code: string;
}

const PAYLOAD_PATH = 'capability.payload';

export function payloadSchemaIssues(error: z.ZodError): CodedIssue[] {
  return error.issues.slice(0, 20).map((issue) => ({
    code: ADAPTER_CODES.schemaInvalid,
    path: [PAYLOAD_PATH, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
}

export function withoutCodes(issues: readonly CodedIssue[]): HandlerIssue[] | undefined {
  return issues.length === 0 ? undefined : issues.map(({ path, message }) => ({ path, message }));
}

export function refuse(issues: readonly CodedIssue[]): never {
  const [first] = issues;
  if (first === undefined) throw new SvcError(ADAPTER_CODES.schemaInvalid, 'the action was refused');
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  throw new SvcError(first.code, `${first.path}: ${first.message}${more}`);
}
