import type { JsonValue, NormalizedAction } from '../actionpass/action.js';

/**
 * The contract between the enforcement spine (proxy, SDK, MCP wrapper) and the code that performs
 * a side effect. The spine decides and records; a handler prepares the exact bytes, lets the spine
 * verify the ActionPass against the hash of those bytes, and only then acts. See docs/adapters.md.
 */

export interface PreparedCall {
  /** The exact bytes the handler will hand to the provider. */
  bytes: Buffer;
  /** sha256 of JCS(payload actually sent), `sha256:<hex>`: the executed half of the equivalence pair. */
  executedPayloadHash: `sha256:${string}`;
}

export interface HandlerContext {
  actionId: string;
  /**
   * Verifies, against the payload hash the handler is about to send, the approval artifact of a
   * step-up first (approval_payload_hash_mismatch, approval_expired, approval_invalid when its
   * reviewer key was revoked since the decision, ...), then the ActionPass (actionpass_invalid,
   * actionpass_expired, actionpass_payload_hash_mismatch, actionpass_replayed). Throws SvcError
   * with that reason code when the side effect must not happen; the spine records the refusal as
   * execution.blocked with both hashes. Call it immediately before the side effect, after
   * everything that could change the bytes.
   */
  verifyBeforeSideEffect(executedPayloadHash: `sha256:${string}`): void;
}

export interface ExecutionResult {
  outcome: 'succeeded' | 'failed';
  executedPayloadHash: `sha256:${string}`;
  /** hashCanonical(result). */
  resultHash: `sha256:${string}`;
  /** Small and free of secrets and payload bodies: paths, sizes, provider ids. */
  result: JsonValue;
  error?: { code: string; message: string };
}

/** A problem with an action as this handler sees it; `path` is dotted, e.g. `capability.payload.to`. */
export interface HandlerIssue {
  path: string;
  message: string;
}

export interface ToolHandler {
  /** The tool this handler performs, e.g. 'chat.message.send'. */
  readonly tool: string;
  /** Validates resource + payload for this tool (zod strict); returns issues or undefined. Called before policy-independent execution. */
  validate(action: NormalizedAction): HandlerIssue[] | undefined;
  /**
   * Throws (SvcError) when the call must not run: invalid action, unsafe target, or a failed
   * `verifyBeforeSideEffect`; then nothing happened. Resolves with outcome 'failed' when the side
   * effect was attempted after verification and did not complete.
   */
  execute(action: NormalizedAction, context: HandlerContext): Promise<ExecutionResult>;
}
