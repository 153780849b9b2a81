import { SvcError } from '../errors.js';
import { ADAPTER_CODES } from './adapter-codes.js';
import { safeFileName } from './safe-file-name.js';

/**
 * `<ts>-<actionId>.json`, ts in ISO 8601 basic format (`20261121T100000.000Z`): sorts by time,
 * reads like the ledger's timestamps, and has no `:` for file systems that refuse one.
 */
export function deliveryFileName(timeMs: number, actionId: string): string {
  const stamp = new Date(timeMs).toISOString().replaceAll('-', '').replaceAll(':', '');
  const id = safeFileName(actionId);
  if (id === undefined) throw new SvcError(ADAPTER_CODES.outboxNameUnsafe, 'the action id cannot be part of a file name');
  const name = `${stamp}-${id}.json`;
  if (name.length > 255) throw new SvcError(ADAPTER_CODES.outboxNameUnsafe, 'the action id is too long to be part of a file name');
  return name;
}
