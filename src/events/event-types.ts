/**
 * The record types of the ledger (DESIGN.md section 5), without their schemas: command-line
 * help and other start-up paths need the names, and should not pay for loading zod.
 */
export const EVENT_TYPES = [
  'ledger.genesis',
  'ledger.checkpoint',
  'ledger.recovered',
  'config.loaded',
  'action.received',
  'policy.decided',
  'actionpass.issued',
  'approval.requested',
  'approval.granted',
  'approval.rejected',
  'execution.blocked',
  'execution.completed',
  'mcp.tool.pinned',
  'mcp.tool.changed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
