import type { LedgerRecord } from '../events/catalogue.js';
import type { LedgerState } from './state.js';

/**
 * A projection file of an export bundle. `rows` sees each record together with the state *before*
 * the record is folded in, and returns the rows it adds; `finish` adds rows that only the final
 * state knows. Rows are written as JCS JSON lines, so equal inputs give equal bytes.
 */
export interface View {
  readonly file: string;
  rows(state: LedgerState, record: LedgerRecord, leafHash: Buffer): readonly object[];
  finish?(state: LedgerState): readonly object[];
}
