import { ACTION_SCHEMA_VERSION } from '../actionpass/action.js';

/**
 * One `tools/call` as the action svc decides: tool `mcp.<server>.<tool>`, resource `mcp:<server>`,
 * payload the call's arguments exactly as they will be sent, so payloadHash is the hash of what
 * reaches the upstream. Tool names outside `[A-Za-z0-9_-]` (or longer than 64) are written with
 * `_` for the other characters, the same mapping the runtime hooks use for `mcp__<server>__<tool>`,
 * so one policy rule covers a tool whichever way it is reached.
 */
export interface McpCaller {
  agentId: string;
  runtime: string;
  taskId: string;
}

export function mcpToolName(server: string, tool: string): string {
  return `mcp.${server}.${toolSegment(tool)}`;
}

export function mcpActionInput(server: string, tool: string, payload: Record<string, unknown>, caller: McpCaller): unknown {
  return {
    schemaVersion: ACTION_SCHEMA_VERSION,
    actor: { agentId: caller.agentId, runtime: caller.runtime },
    intent: { taskId: caller.taskId },
    capability: { tool: mcpToolName(server, tool), resource: `mcp:${server}`, payload },
  };
}

/** The caller as named by the MCP client's `initialize` (clientInfo.name), unless svc was told who the agent is. */
export function callerOf(clientName: unknown, sessionId: string, server: string, agentOverride?: string): McpCaller {
  const name = typeof clientName === 'string' ? clientName.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 64) : '';
  const runtime = name === '' ? 'mcp-client' : name;
  return { agentId: agentOverride ?? `agent:${runtime}`, runtime, taskId: `mcp:${server}:${sessionId}` };
}

function toolSegment(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  return clean === '' ? '_' : clean;
}
