import type { PreVerdict } from '../commands/authorize.js';
import type { EventOf } from '../events/catalogue.js';
import type { PinEntry } from './pin-lock.js';
import type { PresentedTool, ToolDefinition } from './tool-definition.js';

/**
 * The pin deciders: pure functions from the lock and what an upstream presents to where each tool
 * stands, to the ledger records that says so, and to the verdict a call of that tool gets before
 * the policy sees it. No I/O: the wrapper reads the lock and the upstream, these decide.
 */

/** The pins of one server as the lock holds them, or why the lock cannot be used at all. */
export type ServerPins = { ok: true; byTool: ReadonlyMap<string, PinEntry> } | { ok: false; message: string };

export type ToolStanding =
  /** Presented exactly as pinned: the policy decides its calls. */
  | { status: 'pinned'; hash: string; entry: PinEntry }
  /** Same name, different definition: denied until a person approves the new one. */
  | { status: 'changed'; pinnedHash: string; presentedHash: string; entry: PinEntry }
  /** No pin and `firstUse: require`: denied (or step_up) until approved. */
  | { status: 'unpinned'; hash: string }
  /** No pin and `firstUse: pin`: the wrapper signs this definition into the lock now. */
  | { status: 'to_pin'; hash: string; definition: ToolDefinition }
  /** A definition that cannot be hashed, or a name listed twice: never matches a pin. */
  | { status: 'invalid'; message: string }
  /** The lock is corrupt, tampered with or signed by an untrusted key: nothing passes. */
  | { status: 'lock_unusable'; message: string };

/** Given the server's pins and every tool the upstream lists (all pages), where each tool stands. */
export function decidePinCheck(pins: ServerPins, presented: readonly PresentedTool[], firstUse: 'pin' | 'require'): Map<string, ToolStanding> {
  const standings = new Map<string, ToolStanding>();
  const counts = new Map<string, number>();
  for (const tool of presented) counts.set(tool.name, (counts.get(tool.name) ?? 0) + 1);
  for (const tool of presented) {
    if (!pins.ok) {
      standings.set(tool.name, { status: 'lock_unusable', message: pins.message });
      continue;
    }
    if ((counts.get(tool.name) ?? 0) > 1) {
      // Which of the two would run is up to the upstream: neither is the pinned tool for certain.
      standings.set(tool.name, { status: 'invalid', message: `the upstream lists ${counts.get(tool.name)} tools named ${JSON.stringify(tool.name)}` });
      continue;
    }
    if ('invalid' in tool) {
      standings.set(tool.name, { status: 'invalid', message: tool.invalid });
      continue;
    }
    const entry = pins.byTool.get(tool.name);
    if (entry === undefined) standings.set(tool.name, firstUse === 'pin' ? { status: 'to_pin', hash: tool.hash, definition: tool.definition } : { status: 'unpinned', hash: tool.hash });
    else if (entry.definitionHash === tool.hash) standings.set(tool.name, { status: 'pinned', hash: tool.hash, entry });
    else standings.set(tool.name, { status: 'changed', pinnedHash: entry.definitionHash, presentedHash: tool.hash, entry });
  }
  return standings;
}

/** What the ledger last recorded about one tool (RuntimeState.mcpTool). */
export type RecordedTool = { pinned?: string; changed?: { pinnedHash: string; presentedHash: string } } | undefined;

export type PinEvent = EventOf<'mcp.tool.pinned'> | EventOf<'mcp.tool.changed'>;

/**
 * The records that bring the ledger up to date with the standings: `mcp.tool.pinned` for a pin
 * the ledger has not seen (a first use, or an approval made with `svc mcp pins approve`),
 * `mcp.tool.changed` for a change not recorded yet. Recording only what is new keeps one record
 * per event, not one per session.
 */
export function pinEvents(server: string, standings: ReadonlyMap<string, ToolStanding>, recorded: (tool: string) => RecordedTool): PinEvent[] {
  const events: PinEvent[] = [];
  const stream = `mcp:${server}`;
  for (const [tool, standing] of standings) {
    const last = recorded(tool);
    if (standing.status === 'pinned' && last?.pinned !== standing.hash) {
      const { entry } = standing;
      events.push({
        type: 'mcp.tool.pinned',
        stream,
        data: { definitionHash: entry.definitionHash, keyName: entry.keyName, method: entry.method, pinnedAt: entry.pinnedAt, pinnedBy: entry.pinnedBy, server, tool },
      });
    }
    if (standing.status === 'changed' && (last?.changed?.pinnedHash !== standing.pinnedHash || last.changed.presentedHash !== standing.presentedHash)) {
      events.push({ type: 'mcp.tool.changed', stream, data: { pinnedHash: standing.pinnedHash, presentedHash: standing.presentedHash, server, tool } });
    }
  }
  return events;
}

export const PIN_RULE_ID = 'mcp:pins';

/**
 * The verdict a call gets before the policy, from where its tool stands: undefined when the tool
 * is pinned and unchanged (the policy alone decides). The explanation says what a person can do.
 */
export function callGuard(server: string, tool: string, standing: ToolStanding, unpinned: 'deny' | 'step_up'): PreVerdict | undefined {
  const name = `${server}/${tool}`;
  switch (standing.status) {
    case 'pinned':
      return undefined;
    case 'changed':
      return {
        decision: 'deny',
        reasons: ['mcp_tool_definition_changed'],
        ruleId: PIN_RULE_ID,
        explanation: `denied: the definition of ${name} changed since it was pinned (pinned ${standing.pinnedHash}, presented ${standing.presentedHash}); a person reviews it with \`svc mcp pins list\` and accepts it with \`svc mcp pins approve ${server} --tool ${tool}\``,
      };
    case 'unpinned':
    case 'to_pin':
      return {
        decision: unpinned,
        reasons: ['mcp_tool_unpinned'],
        ruleId: PIN_RULE_ID,
        explanation: `${unpinned === 'deny' ? 'denied' : 'needs approval'}: ${name} has no pin in the lock (definition ${standing.hash}); a person pins it with \`svc mcp pins approve ${server} --tool ${tool}\``,
      };
    case 'invalid':
      return { decision: 'deny', reasons: ['mcp_tool_definition_invalid'], ruleId: PIN_RULE_ID, explanation: `denied: ${name} cannot be checked against a pin: ${standing.message}` };
    case 'lock_unusable':
      return { decision: 'deny', reasons: ['mcp_lock_invalid'], ruleId: PIN_RULE_ID, explanation: `denied: the MCP pin lock cannot be trusted, so no tool passes: ${standing.message}` };
  }
}

/** Whether a tool is shown to the agent in tools/list: only a tool that is pinned and unchanged. */
export function isListed(standing: ToolStanding): boolean {
  return standing.status === 'pinned';
}
