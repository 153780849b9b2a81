/** The layout of an export bundle (DESIGN.md section 4, "Export bundle"). */
export const BUNDLE_LEDGER = 'ledger.jsonl';
export const BUNDLE_CHECKPOINT = 'checkpoint';
export const BUNDLE_ATTESTATION = 'attestation.json';
export const BUNDLE_PROJECTIONS = 'projections';
export const EXPORT_PREDICATE_TYPE = 'urn:svc:ledger-export:v0';

export interface ExportPredicate {
  origin: string;
  size: number;
  /** Standard base64 of the Merkle root of `size` records. */
  root: string;
  /** The signed checkpoint note, exactly as in the `checkpoint` file. */
  checkpoint: string;
  reducerVersion: string;
}
