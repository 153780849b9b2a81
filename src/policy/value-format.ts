import { MISSING } from './field-path.js';

/**
 * How values and operands appear in traces and explanations: short, unambiguous, and never a
 * whole payload. Explanations go back to the agent that sent the action and may be logged, so a
 * long string is cut rather than echoed.
 */

const MAX_SHOWN_CHARACTERS = 60;
const MAX_SHOWN_ITEMS = 12;
const PLAIN_TEXT = /^[A-Za-z0-9._:@\/*?+-]+$/;

/** A caller's value: strings quoted and cut, lists and objects named by kind. */
export function formatValue(value: unknown): string {
  if (value === MISSING) return '(missing)';
  if (typeof value === 'string') {
    return value.length > MAX_SHOWN_CHARACTERS ? `${JSON.stringify(value.slice(0, MAX_SHOWN_CHARACTERS)).slice(0, -1)}…"` : JSON.stringify(value);
  }
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object' && value !== null) return 'an object';
  return String(value);
}

/** A policy operand: plain names bare (`eng`, `*@acme.example`), anything else quoted. */
export function formatOperand(value: unknown): string {
  if (typeof value === 'string') return PLAIN_TEXT.test(value) ? value : JSON.stringify(value);
  return String(value);
}

export function formatScalarList(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_SHOWN_ITEMS).map(formatOperand).join(', ');
  const more = values.length - MAX_SHOWN_ITEMS;
  return more > 0 ? `[${shown}, … ${more} more]` : `[${shown}]`;
}
