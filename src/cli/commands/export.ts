import type { Command } from 'commander';
import type { ExportResult } from '../../evidence/export-ledger.js';
import { EXIT_CHECK_FAILED, resolveLedgerPath, type LedgerOptions } from '../context.js';
import { printJson, printLine, progressReporter } from '../output.js';

export function registerExport(program: Command): void {
  program
    .command('export')
    .description('write a signed, self-verifying evidence bundle of the ledger')
    .requiredOption('--out <dir>', 'the bundle directory to create (must not exist, or be empty)')
    .option('--config <file>', 'svc.yml to read the ledger path from (default: ./svc.yml when present)')
    .option('--ledger <file>', 'the ledger to export (default: ledger.path of svc.yml, else .svc/ledger.jsonl)')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', `
The bundle holds ledger.jsonl (the records byte for byte), checkpoint (a C2SP signed note over
exactly those records), projections/ (decisions, approvals, executions, equivalence, SIEM and
OTLP views replayed from the ledger) and attestation.json (a DSSE-signed in-toto statement
listing every file's sha256). The ledger key in <ledger dir>/keys signs it. Anyone can check it
with: svc verify-export <dir> --pubkey <ledger public key>

A ledger that fails its checks (a defect in a line, or fewer records than its checkpoint file
<ledger>.checkpoint covers) is not exported: exit status 1, with the defect's code.

Example:
  svc export --out evidence/2026-11-21`)
    .action(async (options: LedgerOptions & { out: string; json?: boolean }) => {
      const { exportLedger, ExportRefusedError } = await import('../../evidence/export-ledger.js');
      const ledgerPath = await resolveLedgerPath(options);
      const progress = options.json ? undefined : progressReporter('exporting');
      let result: ExportResult;
      try {
        result = await exportLedger({ ledgerPath, outDir: options.out, ...(progress && { onProgress: progress.update }) });
      } catch (error) {
        progress?.end();
        if (!(error instanceof ExportRefusedError)) throw error;
        // The error line of main.ts, but exit 1: the ledger failed its checks, as verify-export would report it.
        if (options.json) printJson({ error: { code: error.code, message: error.message, defect: error.defect } });
        else process.stderr.write(`svc: ${error.message} [${error.code}]\n`);
        process.exitCode = EXIT_CHECK_FAILED;
        return;
      }
      progress?.end();
      if (options.json) {
        printJson(result);
        return;
      }
      printLine(`exported ${result.size} records of ${ledgerPath} to ${result.outDir}`);
      printLine(`  origin       ${result.origin}`);
      printLine(`  merkle root  ${result.root}`);
      printLine(`  files        ${result.files.map((file) => file.name).join(', ')}, attestation.json`);
      if (result.skippedTornTail) printLine(`  note: a torn tail from byte offset ${result.skippedTornTail.offset} was left out; the writer quarantines it when it next opens the ledger`);
      printLine(`verify with: svc verify-export ${result.outDir}`);
    });
}
