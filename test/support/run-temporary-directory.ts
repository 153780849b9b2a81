import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Vitest global setup: the run gets a temporary directory of its own, removed when the run ends.
 * Tests keep the directories they make (a failing test's ledger is worth reading while the run
 * lasts), and the CLIs, proxies and browsers they start make their own; all of them are made under
 * os.tmpdir(), which TMPDIR sets for the test workers and every process they start, so a run
 * leaves nothing behind. SVC_KEEP_TEST_TMP=1 keeps it, and prints where it is.
 */
export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'svc-tests-'));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    if (process.env.SVC_KEEP_TEST_TMP === '1') console.log(`test files kept in ${root}`);
    else rmSync(root, { recursive: true, force: true });
  };
}
