/**
 * Failure codes of ledger and export verification (DESIGN.md section 4), plus `record_invalid`,
 * which the design leaves out: a line that is canonical JSON but not a record of the catalogue
 * (unknown type, missing field, over the size limit). See docs/ledger-format.md.
 */
export const DEFECT_CODES = [
  'torn_line',
  'not_canonical',
  'record_invalid',
  'seq_gap',
  'chain_broken',
  'genesis_invalid',
  'root_mismatch',
  'checkpoint_signature_invalid',
  'key_untrusted',
  'attestation_signature_invalid',
  'subject_digest_mismatch',
  'projection_mismatch',
  'equivalence_mismatch',
] as const;

export type DefectCode = (typeof DEFECT_CODES)[number];

/** Where and why a ledger or bundle failed verification. `seq` and `offset` are absent when the defect is not in a line. */
export interface Defect {
  code: DefectCode;
  message: string;
  seq?: number;
  offset?: number;
  file?: string;
}
