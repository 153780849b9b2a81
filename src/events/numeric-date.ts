import * as z from 'zod';

/**
 * A JWT NumericDate (RFC 7519 section 2) as svc accepts it: whole seconds since 1970, no later
 * than 9999-12-31T23:59:59Z. The bound keeps every date that reaches a ledger record printable
 * as an ISO 8601 timestamp, which `Date` cannot do beyond the year 275760.
 */
export const MAX_NUMERIC_DATE = 253_402_300_799;

// Built on first use (z.lazy), like the schemas that use it.
export const numericDateSchema = z.lazy(() => z.number().int().min(0).max(MAX_NUMERIC_DATE, 'a NumericDate after 9999-12-31T23:59:59Z'));

/** `numericDateSchema`'s verdict without zod, for the hand-written checks on hot paths (catalogue-guard.ts, issuable-claims.ts). */
export function isNumericDate(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_NUMERIC_DATE;
}

/** A NumericDate as RFC 3339, for messages; whatever it is if it is not a date. */
export function isoSeconds(seconds: number): string {
  const date = new Date(seconds * 1000);
  return Number.isFinite(date.getTime()) ? date.toISOString() : String(seconds);
}
