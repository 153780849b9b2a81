import type { NormalizedAction } from '../actionpass/action.js';
import { ADAPTER_CODES } from './adapter-codes.js';
import { refuse, withoutCodes, type CodedIssue } from './handler-issues.js';
import type { ExecutionResult, HandlerContext, ToolHandler } from './tool-handler.js';

export type Parsed<T> = { ok: true; value: T } | { ok: false; issues: CodedIssue[] };

export interface ParsedHandlerSpec<T> {
  tool: string;
  /** Resource and payload checks, pure: no I/O, so `validate` stays cheap and side-effect free. */
  parse(action: NormalizedAction): Parsed<T>;
  run(call: T, context: HandlerContext): Promise<ExecutionResult>;
}

/**
 * A ToolHandler whose `validate` and `execute` share one parser, so `execute` can never accept
 * what `validate` would have refused (the proxy calls `validate`, but an SDK caller might not).
 */
export function parsedHandler<T>(spec: ParsedHandlerSpec<T>): ToolHandler {
  const parse = (action: NormalizedAction): Parsed<T> => {
    if (action.capability.tool !== spec.tool) {
      return { ok: false, issues: [{ code: ADAPTER_CODES.toolMismatch, path: 'capability.tool', message: `this handler performs ${spec.tool}, not ${action.capability.tool}` }] };
    }
    return spec.parse(action);
  };
  return {
    tool: spec.tool,
    validate(action) {
      const parsed = parse(action);
      return parsed.ok ? undefined : withoutCodes(parsed.issues);
    },
    async execute(action, context) {
      const parsed = parse(action);
      if (!parsed.ok) refuse(parsed.issues);
      return spec.run(parsed.value, context);
    },
  };
}
