/**
 * How a refused call reaches the agent: an MCP tool result with `isError: true`, whose text says
 * what was decided, why (the reason codes) and what a person can do, so the model can act on it;
 * `_meta["svc/decision"]` carries the same facts for programs.
 */
export interface Refusal {
  decision: 'allow' | 'deny' | 'step_up' | 'no_opinion';
  status: string;
  reasons: string[];
  explanation: string;
  actionId?: string;
  approvalId?: string;
}

export interface ToolErrorResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  isError: true;
  _meta: { 'svc/decision': Refusal };
}

export function refusalResult(tool: string, refusal: Refusal): ToolErrorResult {
  const verb = refusal.status === 'pending_approval' ? 'is waiting for approval' : refusal.status === 'blocked' ? 'blocked' : 'denied';
  const text = `svc ${verb} the call of ${tool}: ${refusal.explanation} [${refusal.reasons.join(', ')}]`;
  return { content: [{ type: 'text', text }], isError: true, _meta: { 'svc/decision': refusal } };
}
