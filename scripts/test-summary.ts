/**
 * Prints the plain closing line of a test run, `tests: N passed, N failed, N skipped`, from
 * vitest's JSON report, so tools that read only a summary line see the counts.
 */
import { readFile } from 'node:fs/promises';

const report = JSON.parse(await readFile('test-results/vitest.json', 'utf8')) as { numPassedTests: number; numFailedTests: number; numPendingTests: number; numTodoTests: number };
process.stdout.write(`tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${report.numPendingTests + report.numTodoTests} skipped\n`);
