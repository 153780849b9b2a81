/**
 * Reason codes reserved by DESIGN.md section 8. Rules may add their own (snake_case); these are
 * the ones svc itself produces or that carry a fixed meaning everywhere.
 */
export const RESERVED_REASON_CODES = [
  'default_deny',
  'rule_allow',
  'rule_deny',
  'rule_step_up',
  'protected_path_read',
  'protected_path_write',
  'channel_not_allowlisted',
  'external_recipient',
  'sql_write_denied',
  'budget_exceeded',
  'approval_required',
  'approval_payload_hash_mismatch',
  'approval_expired',
  'approval_used',
  'approval_unknown',
  'actionpass_invalid',
  'actionpass_expired',
  'actionpass_payload_hash_mismatch',
  'actionpass_replayed',
  'mcp_tool_definition_changed',
  'mcp_tool_unpinned',
  'shell_unparsable',
  'shell_dynamic_path',
  'no_matching_rule',
  'schema_invalid',
  'ledger_unavailable',
] as const;

export type ReservedReasonCode = (typeof RESERVED_REASON_CODES)[number];

/** A reason code any rule may use: snake_case, at most 64 characters (the ledger's pattern). */
export const REASON_CODE_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
