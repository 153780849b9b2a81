import type { LedgerEvent } from '../events/catalogue.js';

/**
 * The outcome records of an execution: the equivalence pair is the hash that was authorized (by
 * the ActionPass, or by the approval artifact after step-up) and the hash of the bytes actually
 * handed to the provider.
 */
export function executionCompleted(
  actionId: string,
  passId: string,
  approvedPayloadHash: string,
  result: { outcome: 'succeeded' | 'failed'; executedPayloadHash: string; resultHash: string },
): LedgerEvent {
  return {
    type: 'execution.completed',
    stream: `action:${actionId}`,
    data: { actionId, passId, approvedPayloadHash, executedPayloadHash: result.executedPayloadHash, outcome: result.outcome, resultHash: result.resultHash },
  };
}

export function executionBlocked(actionId: string, reason: string, approvedPayloadHash: string, executedPayloadHash: string): LedgerEvent {
  return { type: 'execution.blocked', stream: `action:${actionId}`, data: { actionId, reason, approvedPayloadHash, executedPayloadHash } };
}
