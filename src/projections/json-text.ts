/**
 * Pieces of JSON text exactly as JSON.stringify writes them, for views that write their hottest
 * rows as text: building a row object only to serialize it costs more than the text itself.
 */

const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify(text): quoted, escaped only where something needs escaping. */
export function jsonString(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** A JSON string, or null for undefined (as a row field that is null when absent). */
export function jsonStringOrNull(text: string | undefined): string {
  return text === undefined ? 'null' : jsonString(text);
}

/**
 * JSON.stringify(token) for a token: a value of a checked record that the event catalogue holds to
 * a pattern in which no character needs escaping (record types, ts, streams, identifiers, sha256
 * hashes, base64 roots, reason codes, decisions, sources). Views see only records that passed the
 * catalogue checks (a replay's output counts only when the chain checks pass), so a token is
 * quoted as it stands instead of being searched for characters to escape: most strings of the
 * largest projections are tokens. Free text (rule ids, approvers, actor fields, prose reasons,
 * origins) goes through jsonString.
 */
export function jsonToken(token: string): string {
  return `"${token}"`;
}
