import { join } from 'node:path';
import { ensureFixture } from './fixture.js';
import {
  assertValidRuns,
  bestChild,
  fmtInt,
  fmtMB,
  fmtNum,
  printTargets,
  rateTable,
  runChild,
  target,
  type BenchOptions,
  type BenchResult,
  type Benchmark,
} from './lib.js';

/**
 * `verifyExport` over a 1,000,000-record bundle (100,000 with --quick), timed and with its peak
 * RSS measured in a fresh child process, against hashing the same ledger.jsonl with sha256 in the
 * same run. Also `verifyExport` on the bare ledger file (chain, checkpoints, sidecar; no projections).
 */
export const benchmark: Benchmark = {
  name: 'verify-export',
  description: 'verifyExport records/s and peak RSS vs sha256 of the same file',
  async run(options: BenchOptions): Promise<BenchResult> {
    const size = options.quick ? 100_000 : 1_000_000;
    const fixture = await ensureFixture(options.outDir, size);
    const bundleLedger = join(fixture.bundleDir, 'ledger.jsonl');
    const records = fixture.records;
    console.log(`  fixture: ${fmtInt(records)} records, ${fmtMB(fixture.bytes)} (${fmtInt(fixture.bytes / records)} bytes/record)${fixture.generatedIn > 0 ? '' : ', cached'}`);

    // Baselines first (this also puts the file in the page cache for every run that follows).
    const idle = await runChild('idle', bundleLedger);
    const hash = await bestChild('hash', bundleLedger, 3);
    const bundle = await runChild('verify', fixture.bundleDir);
    const bare = await runChild('verify', fixture.ledgerPath);
    assertValidRuns([bundle, bare], records);
    const hashRate = records / hash.seconds;
    console.log(
      rateTable(
        records,
        hash,
        [
          ['sha256 of ledger.jsonl (baseline)', hash],
          ['verifyExport(bundle dir)', bundle],
          ['verifyExport(bare ledger.jsonl)', bare],
        ],
        [['node process, modules loaded, idle', '', '', '', fmtMB(idle.maxRss)]],
      ),
    );
    const bundleRate = records / bundle.seconds;
    const peakMB = bundle.maxRss / (1024 * 1024);
    const targets = [
      target(`verifyExport(bundle) records/s (${fmtInt(records)} records)`, bundleRate, '>=', 100_000, 'records/s'),
      target('verifyExport(bundle) peak RSS', peakMB, '<', 200, 'MB'),
      target('verifyExport(bare ledger) peak RSS', bare.maxRss / (1024 * 1024), '<', 200, 'MB'),
    ];
    printTargets(targets);
    return {
      name: this.name,
      metrics: [
        { label: 'records', value: records, unit: 'records' },
        { label: 'ledger bytes', value: fixture.bytes, unit: 'bytes' },
        { label: 'sha256 baseline', value: hashRate, unit: 'records/s' },
        { label: 'sha256 baseline', value: fixture.bytes / hash.seconds / 1e6, unit: 'MB/s' },
        { label: 'verifyExport(bundle)', value: bundleRate, unit: 'records/s' },
        { label: 'verifyExport(bundle) seconds', value: bundle.seconds, unit: 's' },
        { label: 'verifyExport(bundle) vs sha256', value: bundleRate / hashRate, unit: 'ratio' },
        { label: 'verifyExport(bundle) peak RSS', value: peakMB, unit: 'MB' },
        { label: 'verifyExport(bare)', value: records / bare.seconds, unit: 'records/s' },
        { label: 'verifyExport(bare) peak RSS', value: bare.maxRss / (1024 * 1024), unit: 'MB' },
        { label: 'idle verifier process peak RSS', value: idle.maxRss / (1024 * 1024), unit: 'MB' },
        { label: 'sha256 child peak RSS', value: hash.maxRss / (1024 * 1024), unit: 'MB' },
      ],
      targets,
      notes: fixture.generatedIn > 0 ? [`fixture generated in ${fmtNum(fixture.generatedIn, 1)} s, exported in ${fmtNum(fixture.exportedIn, 1)} s`] : ['fixture from cache'],
    };
  },
};
