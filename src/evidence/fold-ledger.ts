import { SvcError } from '../errors.js';
import type { RuntimeState } from '../projections/runtime-state.js';
import { runLedgerPass } from './ledger-pass.js';

/**
 * Folds a ledger file into a runtime state, verifying the chain on the way: the proxy at start-up
 * and the approval commands read the state this way. A torn tail (a writer killed mid-append, pages lost in a power loss)
 * is left out, as the writer will quarantine it; any other defect is refused.
 */
export async function foldLedgerFile(path: string, state: RuntimeState, options: { end?: number } = {}): Promise<void> {
  const pass = await runLedgerPass(path, { tolerateTornTail: true, onRecords: (records) => records.forEach((checked) => state.apply(checked.record)), ...(options.end !== undefined && { end: options.end }) });
  if (pass.defect) throw new SvcError('ledger_corrupt', `${path}: ${pass.defect.code} at seq ${pass.defect.seq ?? '?'}, byte offset ${pass.defect.offset ?? '?'}: ${pass.defect.message}`);
}
