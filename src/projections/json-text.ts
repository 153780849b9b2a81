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
