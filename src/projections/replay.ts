import { canonicalJson, toSha256 } from '../events/canonical.js';
import type { CheckedRecord } from '../events/chain-checker.js';
import { approvalsView } from './approvals.js';
import { decisionsView } from './decisions.js';
import { judgeExecution, type EquivalenceVerdict } from './equivalence.js';
import { equivalenceView, executionsView } from './executions.js';
import { otlpLogsView } from './otlp.js';
import { siemView } from './siem.js';
import { evolve, initialState, type LedgerState } from './state.js';
import type { Row, View } from './view.js';

/** Bumped whenever any projection's bytes change for the same ledger; recorded in attestations. */
export const REDUCER_VERSION = 'svc.reducers.v0';

/** Receives the bytes of one projection file, line by line. */
export type ProjectionSink = (line: string) => void;

/**
 * A ProjectionSink that also takes the file's bytes as UTF-8 (`writeBytes`, each call the next
 * bytes of the file): a row a view built as bytes then reaches it without being decoded to a
 * string only to be encoded again. A plain ProjectionSink gets such a row as a string.
 */
export interface ByteProjectionSink extends ProjectionSink {
  /** The bytes are read at once: the caller may reuse their memory afterwards. */
  writeBytes(bytes: Uint8Array): void;
  /**
   * The next line as its text without the newline, which the sink adds: `${text}\n` would be a
   * new string, copied whole (flattened) before it is encoded, for every row serialized as one
   * flat string (JSON.stringify's), where the sink can encode the text and add one byte.
   */
  writeLine?(text: string): void;
}

const NEWLINE = new Uint8Array([0x0a]);

export function allViews(): View[] {
  return [decisionsView(), approvalsView(), executionsView(), equivalenceView(), siemView(), otlpLogsView()];
}

export const PROJECTION_FILES = allViews().map((view) => view.file);

/** Called with the equivalence verdict of each execution record, as it is replayed. */
export type VerdictListener = (verdict: EquivalenceVerdict, checked: CheckedRecord) => void;

/**
 * The one replay every consumer uses: feed records in seq order, in batches of any size, then
 * `finish`. The views see the state before each record; then `evolve` folds it in. Every
 * execution is judged against that same state, counted in `verdicts` and reported to `onVerdict`.
 */
export class Replay {
  readonly state: LedgerState = initialState();
  readonly verdicts = { equivalent: 0, blocked: 0, violated: 0 };
  private readonly views: View[];
  private finished = false;

  constructor(
    private readonly sinks: Partial<Record<string, ProjectionSink>> = {},
    private readonly onVerdict?: VerdictListener,
  ) {
    this.views = allViews().filter((view) => sinks[view.file] !== undefined);
    this.needsRecordHashes = this.views.some((view) => view.usesRecordHash === true);
  }

  /** Whether any view reads the records' leaf hashes (the replay pass only then works them out). */
  readonly needsRecordHashes: boolean;

  apply(records: Iterable<CheckedRecord>): void {
    for (const checked of records) {
      const record = checked.record;
      const recordHash = this.needsRecordHashes ? (checked.recordHash ?? toSha256(checked.leafHash)) : '';
      let verdict: EquivalenceVerdict | undefined;
      if (record.type === 'execution.completed' || record.type === 'execution.blocked') {
        verdict = judgeExecution(this.state, record);
        this.verdicts[verdict.status] += 1;
        this.onVerdict?.(verdict, checked);
      }
      for (const view of this.views) {
        const rows = view.rows(this.state, record, recordHash, verdict);
        for (const row of rows) this.emit(view, row);
      }
      evolve(this.state, record);
      for (const view of this.views) for (const row of view.after?.(this.state, record) ?? []) this.emit(view, row);
    }
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    for (const view of this.views) for (const row of view.finish?.(this.state) ?? []) this.emit(view, row);
  }

  private emit(view: View, row: Row): void {
    const sink = this.sinks[view.file] as ProjectionSink | ByteProjectionSink;
    if (row instanceof Uint8Array) {
      if ('writeBytes' in sink) {
        sink.writeBytes(row);
        sink.writeBytes(NEWLINE);
      } else sink(`${Buffer.from(row.buffer, row.byteOffset, row.byteLength).toString('utf8')}\n`);
      return;
    }
    const text = typeof row === 'string' ? row : view.sortedRows ? JSON.stringify(row) : canonicalJson(row);
    if ('writeLine' in sink && sink.writeLine !== undefined) sink.writeLine(text);
    else sink(`${text}\n`);
  }
}
