import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { SvcError } from '../../errors.js';
import type { Defect } from '../../events/defects.js';
import type { EquivalenceVerdict } from '../../projections/equivalence.js';
import { EXIT_CHECK_FAILED, EXIT_OK, readPublicKeyOption, resolveLedgerPath } from '../context.js';
import { printJson, printLine, progressReporter } from '../output.js';

interface ProveCommandOptions {
  config?: string;
  ledger?: string;
  export?: string;
  action?: string;
  out?: string;
  verify?: string;
  pubkey?: string;
  json?: boolean;
}

export function registerProveEquivalence(program: Command): void {
  program
    .command('prove-equivalence')
    .description('prove that every executed payload is the one that was authorized (approved hash = executed hash)')
    .option('--config <file>', 'svc.yml to read the ledger path from')
    .option('--ledger <file>', 'the ledger to prove from (default: ledger.path of svc.yml, else .svc/ledger.jsonl)')
    .option('--export <dir>', 'prove from an export bundle instead of a ledger')
    .option('--action <id>', 'only the execution of this action')
    .option('--out <file>', 'write the proof (records, RFC 9162 inclusion proofs, signed checkpoint) to this file')
    .option('--verify <proof>', 'check a proof file without the ledger')
    .option('--pubkey <key>', 'the ledger public key you trust (base64 or a file); without it the genesis key is trusted')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', `
For every execution.completed record, checks that executedPayloadHash equals approvedPayloadHash
and that the approved hash is the one bound by the action's ActionPass (and by its approval
artifact after a step-up). An execution.blocked record is evidence that enforcement stopped a
changed payload, and is reported as such. Exit status: 0 every pair holds, 1 otherwise, 2 usage
or I/O error.

Examples:
  svc prove-equivalence --out proof.json
  svc prove-equivalence --verify proof.json --pubkey ./ledger.pub`)
    .action(async (options: ProveCommandOptions) => {
      const { proveEquivalence, verifyEquivalenceProof } = await import('../../evidence/prove-equivalence.js');
      const { canonicalJson } = await import('../../events/canonical.js');
      const pinnedKey = await readPublicKeyOption(options.pubkey);
      if (options.verify) {
        const check = verifyEquivalenceProof(await readFile(options.verify, 'utf8'), pinnedKey);
        if (options.json) printJson(check);
        else printOutcome(check.valid ? `proof ${options.verify} verifies${check.keyPinned ? '' : ' (key not pinned: the genesis key in the proof was trusted)'}` : `proof ${options.verify} does NOT verify`, check.verdicts, check.defect);
        process.exitCode = check.valid && check.holds ? EXIT_OK : EXIT_CHECK_FAILED;
        return;
      }
      if (options.export && options.ledger) throw new SvcError('usage', 'give either --ledger or --export, not both');
      const ledgerPath = options.export ? undefined : await resolveLedgerPath(options);
      const progress = options.json ? undefined : progressReporter('replaying');
      const result = await proveEquivalence({
        ...(ledgerPath && { ledgerPath }),
        ...(options.export && { exportDir: options.export }),
        ...(options.action && { actionId: options.action }),
        ...(pinnedKey && { pinnedKey }),
        ...(progress && { onProgress: progress.update }),
      });
      progress?.end();
      if (options.out && result.proof) await writeFile(options.out, `${canonicalJson(result.proof)}\n`);
      if (options.json) printJson({ holds: result.holds, verdicts: result.verdicts, uncovered: result.uncovered, defect: result.defect, proofFile: result.proof && options.out });
      else {
        printOutcome(result.holds ? 'every equivalence pair holds' : 'equivalence does NOT hold', result.verdicts, result.defect);
        if (result.uncovered.length > 0) printLine(`  not yet covered by a signed checkpoint (prove again after the next checkpoint, or export): ${result.uncovered.join(', ')}`);
        if (options.out) printLine(result.proof ? `proof written to ${options.out}` : 'no proof written');
      }
      process.exitCode = result.holds ? EXIT_OK : EXIT_CHECK_FAILED;
    });
}

function printOutcome(headline: string, verdicts: readonly EquivalenceVerdict[], defect: Defect | undefined): void {
  printLine(headline);
  if (defect) printLine(`  ${defect.code}${defect.seq !== undefined ? ` at seq ${defect.seq}` : ''}: ${defect.message}`);
  for (const verdict of verdicts) {
    const pair = `approved ${verdict.approvedPayloadHash}  executed ${verdict.executedPayloadHash}`;
    if (verdict.status === 'equivalent') printLine(`  equivalent  ${verdict.actionId} (seq ${verdict.seq})  ${pair}`);
    else if (verdict.status === 'blocked') printLine(`  blocked     ${verdict.actionId} (seq ${verdict.seq})  ${verdict.reason}: ${pair}  -> enforcement stopped a changed payload`);
    else printLine(`  VIOLATED    ${verdict.actionId} (seq ${verdict.seq})  ${verdict.problem}: ${pair}`);
  }
  if (verdicts.length === 0) printLine('  no executions recorded');
}
