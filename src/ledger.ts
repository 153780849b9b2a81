/**
 * `svc/ledger`: the crash-durable, hash-chained ledger, its proofs and its evidence.
 * Formats: docs/ledger-format.md.
 */
export { LedgerWriter, type OpenLedgerOptions, type Receipt } from './events/ledger-writer.js';
export { openLedgerWithKey, loadLedgerKey, readGenesis, keysDirectoryOf } from './events/ledger-key.js';
export { scanLedger, type LedgerScan, type TornTail } from './events/ledger-scan.js';
export { ChainChecker, type CheckedRecord } from './events/chain-checker.js';
export { EVENT_TYPES, LEDGER_FORMAT, checkEvent, checkRecord, type EventType, type EventData, type LedgerEvent, type LedgerRecord, type RecordOf } from './events/catalogue.js';
export { DEFECT_CODES, type Defect, type DefectCode } from './events/defects.js';
export { CompactRange, MerkleTree, hashLeaf, hashChildren, verifyInclusion, verifyConsistency } from './events/merkle.js';
export { signCheckpoint, parseCheckpoint, verifyCheckpoint, noteKeyId, checkpointBody } from './events/checkpoint.js';
export { Replay, REDUCER_VERSION, PROJECTION_FILES, type ProjectionSink } from './projections/replay.js';
export { evolve, initialState, type LedgerState } from './projections/state.js';
export { judgeExecution, type EquivalenceVerdict } from './projections/equivalence.js';
export { runLedgerPass, type LedgerPassOptions, type LedgerPassResult } from './evidence/ledger-pass.js';
export { exportLedger, type ExportOptions, type ExportResult } from './evidence/export-ledger.js';
export { verifyExport, type VerifyOptions, type VerifyReport } from './evidence/verify-export.js';
export { proveEquivalence, verifyEquivalenceProof, type EquivalenceProof, type ProveResult, type ProofCheck } from './evidence/prove-equivalence.js';
