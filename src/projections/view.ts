import type { LedgerRecord } from '../events/catalogue.js';
import type { LedgerState } from './state.js';

/**
 * A projection file of an export bundle. `rows` sees each record together with the state *before*
 * the record is folded in; `after` sees the state after it; `finish` adds rows that only the final
 * state knows. Rows are written as JCS JSON lines, so equal inputs give equal bytes. Views build
 * their rows with keys already in JCS order, which lets serialization take its fast path.
 */
export interface View {
  readonly file: string;
  rows(state: LedgerState, record: LedgerRecord, leafHash: Buffer): readonly object[];
  after?(state: LedgerState, record: LedgerRecord): readonly object[];
  finish?(state: LedgerState): readonly object[];
}
