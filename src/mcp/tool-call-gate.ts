import type { ActionPassClaims } from '../actionpass/actionpass-token.js';
import { hashCanonical } from '../events/canonical.js';
import { SvcError } from '../errors.js';
import type { Enforcer } from '../proxy/enforcer.js';
import { refusalResult } from './denial.js';
import { JSONRPC_INVALID_PARAMS, svcError, type JsonRpcError } from './jsonrpc.js';
import { mcpActionInput, type McpCaller } from './mcp-action.js';
import { callGuard, type ToolStanding } from './pin-check.js';

/**
 * One `tools/call` through svc: pin check, policy, ActionPass, the pass verified again against the
 * exact arguments about to be sent, the call, and its outcome recorded with the equivalence pair.
 * A refusal is an MCP tool result with `isError: true` (the agent can read why); a call that is
 * not valid input is a JSON-RPC error and records nothing.
 */
export type CallAnswer = { result: Record<string, unknown> } | { error: JsonRpcError };

export interface GateDependencies {
  enforcer: Enforcer;
  server: string;
  caller: McpCaller;
  unpinned: 'deny' | 'step_up';
  /** Where the tool stands against its pin right now; undefined when the upstream does not list it. */
  standing(tool: string): Promise<ToolStanding | undefined>;
  /** Sends the call upstream with exactly these params and waits for its answer. */
  forward(params: Record<string, unknown>): Promise<CallAnswer>;
  /** Whether the agent cancelled the request meanwhile (then nothing is sent). */
  cancelled(): boolean;
  log(line: string): void;
}

export async function gateToolCall(params: Record<string, unknown> | undefined, deps: GateDependencies): Promise<CallAnswer | undefined> {
  const name = params?.name;
  if (typeof name !== 'string' || name === '') return invalid('tools/call needs params.name, the tool to call');
  const args = params?.arguments ?? {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return invalid('params.arguments must be a JSON object');
  const payload = args as Record<string, unknown>;

  const standing = await deps.standing(name);
  if (standing === undefined) return invalid(`unknown tool ${JSON.stringify(name)}: ${deps.server} does not list it`, 'mcp_tool_unknown');
  const guard = callGuard(deps.server, name, standing, deps.unpinned);

  const decided = await deps.enforcer.authorize(mcpActionInput(deps.server, name, payload, deps.caller), { source: 'mcp', ...(guard && { guard }) });
  if ('invalid' in decided) {
    const issues = decided.invalid.map((issue) => `${issue.path.replace(/^capability\.payload/, 'arguments')}: ${issue.message}`);
    return invalid(`the arguments cannot be decided on: ${issues.join('; ')}`, 'schema_invalid', { issues: decided.invalid });
  }
  const { outcome } = decided;
  const pass = decided.pass;
  if (!pass) {
    const approvalId = outcome.approval?.approvalId;
    const explanation =
      outcome.status === 'pending_approval' && approvalId !== undefined
        ? `${outcome.decision.explanation}; approval ${approvalId} is pending: a reviewer approves this exact call with \`svc approvals approve ${approvalId}\`, then the identical call passes once`
        : outcome.explanation;
    return {
      result: refusalResult(`${deps.server}/${name}`, {
        decision: outcome.decision.decision,
        status: outcome.status,
        reasons: outcome.decision.reasons,
        explanation,
        actionId: decided.actionId,
        ...(approvalId !== undefined && { approvalId }),
      }),
    };
  }
  if (deps.cancelled()) return undefined;

  // Exactly these params go upstream: the hash verified here is the hash of what is sent.
  const sent = { ...params, arguments: payload };
  const executedPayloadHash = hashCanonical(payload);
  const check = deps.enforcer.verifyBeforeSideEffect(decided, pass.token, executedPayloadHash);
  if (!check.ok) {
    await deps.enforcer.recordBlocked(pass.claims, check.reason, executedPayloadHash);
    return { result: refusalResult(`${deps.server}/${name}`, { decision: 'deny', status: 'blocked', reasons: [check.reason], explanation: check.message, actionId: decided.actionId }) };
  }
  const answer = await deps.forward(sent);
  await record(deps, check.claims, executedPayloadHash, answer);
  return answer;
}

/** The outcome with the equivalence pair; the upstream's answer goes back to the agent whether or not the ledger took it. */
async function record(deps: GateDependencies, claims: ActionPassClaims, executedPayloadHash: string, answer: CallAnswer): Promise<void> {
  const failed = 'error' in answer || answer.result.isError === true;
  let resultHash: string;
  try {
    resultHash = hashCanonical('error' in answer ? { error: { code: answer.error.code, message: answer.error.message } } : answer.result);
  } catch {
    resultHash = hashCanonical({ unhashable: true });
  }
  try {
    await deps.enforcer.recordExecution(claims, { outcome: failed ? 'failed' : 'succeeded', executedPayloadHash, resultHash });
  } catch (error) {
    // The side effect happened; refusing the answer now would only invite a second one.
    deps.log(`the outcome of ${claims.actionId} could not be recorded: ${(error as Error).message}${error instanceof SvcError ? ` [${error.code}]` : ''}`);
  }
}

function invalid(message: string, code = 'mcp_call_invalid', extra: Record<string, unknown> = {}): CallAnswer {
  return { error: svcError(JSONRPC_INVALID_PARAMS, code, message, extra) };
}
