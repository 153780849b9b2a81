import { join } from 'node:path';
import { ensureFixture } from './fixture.js';
import { assertValidRuns, bestChild, fmtInt, fmtMB, fmtNum, offsetAfterRecords, rateTable, runChild, type BenchOptions, type BenchResult, type Benchmark } from './lib.js';

/**
 * Replay throughput: runLedgerPass with every projection sink discarding its output, the same
 * pass with no sinks (chain checks only), and sha256 of the same bytes, each in a fresh process
 * over the verify-export fixture: all of the 100,000-record one with --quick, the first 300,000
 * records of the 1,000,000-record one otherwise (the rate is flat; this keeps the run short).
 */

const FULL_PREFIX_RECORDS = 300_000;
export const benchmark: Benchmark = {
  name: 'replay',
  description: 'runLedgerPass with all projection sinks vs no sinks vs sha256',
  async run(options: BenchOptions): Promise<BenchResult> {
    const size = options.quick ? 100_000 : 1_000_000;
    const fixture = await ensureFixture(options.outDir, size);
    const ledger = join(fixture.bundleDir, 'ledger.jsonl');
    const records = Math.min(fixture.records, options.quick ? fixture.records : FULL_PREFIX_RECORDS);
    const end = records < fixture.records ? await offsetAfterRecords(ledger, records) : undefined;
    const bytes = end ?? fixture.bytes;
    console.log(`  input: ${records < fixture.records ? `the first ${fmtInt(records)} of ` : ''}${fmtInt(fixture.records)} records, ${fmtMB(bytes)}`);

    const hash = await bestChild('hash', ledger, 3, end);
    const bare = await runChild('pass-bare', ledger, end);
    const sinks = await runChild('pass-sinks', ledger, end);
    assertValidRuns([bare, sinks], records);
    const hashRate = records / hash.seconds;
    const bareRate = records / bare.seconds;
    const sinksRate = records / sinks.seconds;
    console.log(
      rateTable(records, hash, [
        ['sha256 of the file (baseline)', hash],
        ['runLedgerPass, no sinks (chain checks only)', bare],
        ['runLedgerPass, all projection sinks (discarded)', sinks],
      ]),
    );
    const projectionShare = sinks.seconds > 0 ? (sinks.seconds - bare.seconds) / sinks.seconds : 0;
    console.log(`  projections add ${fmtNum(sinks.seconds - bare.seconds, 2)} s (${fmtNum(100 * projectionShare, 1)}% of the full pass); chain checks are ${fmtNum(bare.seconds / hash.seconds, 1)}x the cost of hashing`);
    return {
      name: this.name,
      metrics: [
        { label: 'records', value: records, unit: 'records' },
        { label: 'bytes', value: bytes, unit: 'bytes' },
        { label: 'sha256 baseline', value: hashRate, unit: 'records/s' },
        { label: 'pass, no sinks', value: bareRate, unit: 'records/s' },
        { label: 'pass, all sinks', value: sinksRate, unit: 'records/s' },
        { label: 'pass, no sinks vs sha256', value: bareRate / hashRate, unit: 'ratio' },
        { label: 'pass, all sinks vs sha256', value: sinksRate / hashRate, unit: 'ratio' },
        { label: 'pass, all sinks vs no sinks', value: sinksRate / bareRate, unit: 'ratio' },
        { label: 'pass, all sinks peak RSS', value: sinks.maxRss / (1024 * 1024), unit: 'MB' },
      ],
      targets: [],
      notes: [],
    };
  },
};
