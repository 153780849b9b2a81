import { runLedgerPass } from '../src/evidence/ledger-pass.js';
import { verifyExport } from '../src/evidence/verify-export.js';
import { PROJECTION_FILES } from '../src/projections/replay.js';
import { hashFile, now, seconds, type ChildMode, type ChildReport } from './lib.js';

/**
 * One measurement in a fresh process: `node dist/bench/child.js <mode> <path>` prints one JSON
 * line (ChildReport) with the wall time of the operation alone and the peak RSS of the process.
 * Also the handle for profiling, e.g. `node --cpu-prof dist/bench/child.js verify <bundle dir>`.
 *
 * `end` (hash and pass modes): read only the bytes before that offset, a prefix of whole records.
 *
 *   idle        load the same modules, do nothing (the fixed cost of a verifier process)
 *   hash        sha256 of the file, streamed in 1 MiB chunks (the baseline)
 *   verify      verifyExport(path), a bundle directory or a bare ledger file
 *   pass-bare   runLedgerPass(path) with no sinks: chain checks only
 *   pass-sinks  runLedgerPass(path) with every projection sink discarding its output
 */
async function main(): Promise<void> {
  const [mode, path, endArg] = process.argv.slice(2) as [ChildMode | undefined, string | undefined, string | undefined];
  if (!mode || !path) throw new Error('usage: child.js <idle|hash|verify|pass-bare|pass-sinks> <path> [end byte offset]');
  const end = endArg === undefined ? undefined : Number(endArg);
  const start = now();
  const report: Omit<ChildReport, 'seconds' | 'maxRss'> = { mode, path };
  switch (mode) {
    case 'idle':
      break;
    case 'hash':
      await hashFile(path, end);
      break;
    case 'verify': {
      const result = await verifyExport(path);
      report.valid = result.valid;
      report.records = result.records;
      if (result.defect) report.defect = `${result.defect.code} at seq ${result.defect.seq ?? '?'}: ${result.defect.message}`;
      break;
    }
    case 'pass-bare':
    case 'pass-sinks': {
      const discard = (_line: string): void => undefined;
      const sinks = mode === 'pass-sinks' ? Object.fromEntries(PROJECTION_FILES.map((file) => [file, discard])) : {};
      const result = await runLedgerPass(path, { sinks, ...(end !== undefined && { end }) });
      report.valid = result.defect === undefined;
      report.records = result.checker.size;
      if (result.defect) report.defect = `${result.defect.code} at seq ${result.defect.seq ?? '?'}: ${result.defect.message}`;
      break;
    }
    default:
      throw new Error(`unknown mode ${String(mode)}`);
  }
  const elapsed = seconds(start);
  // maxRSS is in kilobytes.
  const full: ChildReport = { ...report, seconds: elapsed, maxRss: process.resourceUsage().maxRSS * 1024 };
  process.stdout.write(`${JSON.stringify(full)}\n`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(2);
});
