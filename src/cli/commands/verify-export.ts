import type { Command } from 'commander';
import type { VerifyReport } from '../../evidence/verify-export.js';
import { EXIT_CHECK_FAILED, EXIT_OK, readPublicKeyOption } from '../context.js';
import { printable, printJson, printLine as printTrustedLine, progressReporter } from '../output.js';

/** Every line of the text report quotes the evidence (path, origin, messages, file names): shown, never run by the terminal. */
function printLine(text: string): void {
  printTrustedLine(printable(text));
}

export function registerVerifyExport(program: Command): void {
  program
    .command('verify-export')
    .description('verify an export bundle or a ledger file offline: signatures, chain, Merkle root, projections and equivalence pairs')
    .argument('<path>', 'an export bundle directory (from svc export) or a ledger .jsonl file')
    .option('--pubkey <key>', 'the ledger public key you trust: base64 of 32 bytes, or a file holding it; without it the key in the genesis record is trusted')
    .option('--json', 'print the report as JSON')
    .addHelpText('after', `
Checks, failing closed at the first defect: the attestation signature and the files it lists;
every line canonical, newline-terminated, contiguous in seq and chained; the genesis and every
checkpoint signature; the Merkle root; each projection replayed and compared byte for byte; every
equivalence pair. Nothing is written.

Exit status: 0 valid, 1 invalid (the report names the code, seq and byte offset), 2 usage or I/O error.

Examples:
  svc verify-export ./evidence --pubkey ./ledger.pub
  svc verify-export .svc/ledger.jsonl --json`)
    .action(async (path: string, options: { pubkey?: string; json?: boolean }) => {
      const { verifyExport } = await import('../../evidence/verify-export.js');
      const pinnedKey = await readPublicKeyOption(options.pubkey);
      const progress = options.json ? undefined : progressReporter('verifying');
      const report = await verifyExport(path, { ...(pinnedKey && { pinnedKey }), ...(progress && { onProgress: progress.update }) });
      progress?.end();
      if (options.json) printJson(report);
      else printReport(report);
      process.exitCode = report.valid ? EXIT_OK : EXIT_CHECK_FAILED;
    });
}

function printReport(report: VerifyReport): void {
  const what = report.kind === 'bundle' ? 'export bundle' : 'ledger';
  if (report.valid) {
    printLine(`VALID ${what} ${report.path}`);
  } else {
    const defect = report.defect;
    const where = [defect?.file && `in ${defect.file}`, defect?.seq !== undefined && `at seq ${defect.seq}`, defect?.offset !== undefined && `byte offset ${defect.offset}`].filter(Boolean).join(', ');
    printLine(`INVALID ${what} ${report.path}`);
    printLine(`  ${defect?.code ?? 'unknown'}${where ? ` (${where})` : ''}: ${defect?.message ?? ''}`);
  }
  printLine(`  origin       ${report.origin ?? '(unknown)'}`);
  printLine(`  records      ${report.records}${report.valid ? '' : ' verified before the defect'}`);
  if (report.root) printLine(`  merkle root  ${report.root}`);
  if (report.valid) {
    const coverage = report.uncheckpointed > 0 ? `the newest ${report.uncheckpointed} records are covered by the chain only` : 'every record is covered by a signed checkpoint';
    printLine(`  checkpoints  ${report.checkpoints} in-band; ${coverage}`);
  }
  const { equivalent, blocked, violated } = report.equivalence;
  printLine(`  equivalence  ${equivalent} executions equivalent, ${blocked} blocked mismatches (enforcement worked), ${violated} violated`);
  printLine(`  key          ${report.keyPinned ? 'pinned with --pubkey' : 'NOT pinned: trusted the genesis key as it stands'}`);
  for (const warning of report.warnings) printLine(`  note: ${warning}`);
}
