import type { LedgerRecord } from '../events/catalogue.js';
import type { EquivalenceVerdict } from './equivalence.js';
import type { LedgerState } from './state.js';

/**
 * A projection file of an export bundle. `rows` sees each record together with the state *before*
 * the record is folded in; `after` sees the state after it; `finish` adds rows that only the final
 * state knows. Rows are written as JCS JSON lines, so equal inputs give equal bytes.
 */
export interface View {
  readonly file: string;
  /**
   * The view builds every row with its keys already in JCS order (and row values come from
   * canonical records, so no lone surrogates), so JSON.stringify writes its JCS form. A test
   * checks every row of every view that says so.
   */
  readonly sortedRows?: true;
  /** The view reads the `recordHash` given to `rows`; a replay feeding none of these may pass an empty one. */
  readonly usesRecordHash?: true;
  /**
   * `recordHash`: the record's leaf hash as `sha256:` and 64 hex digits. `verdict`: for an
   * execution record, its equivalence verdict, judged once by the replay for every view.
   */
  rows(state: LedgerState, record: LedgerRecord, recordHash: string, verdict?: EquivalenceVerdict): readonly Row[];
  after?(state: LedgerState, record: LedgerRecord): readonly Row[];
  finish?(state: LedgerState): readonly Row[];
}

/**
 * A row as an object to serialize, or as its JSON text already written (by a view whose rows are
 * the bulk of a bundle, so that no object is built only to be serialized), as a string or as its
 * UTF-8 bytes. Text rows must be the JCS form of the row: what JSON.stringify writes for an object
 * whose keys are in JCS order. A bytes row (the OTLP view builds its lines as bytes) is read at
 * once, before the view is called again: the view may reuse its memory.
 */
export type Row = object | string | Uint8Array;
