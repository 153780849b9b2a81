/**
 * Child process of test/events/crash.test.ts: opens a ledger and appends to it from many
 * concurrent loops until it is killed with SIGKILL.
 *
 *   node dist/test/children/append-until-killed.js <ledger path>
 *
 * Environment (all set by the parent):
 *   SVC_CRASH_KEY_SEED   64 hex chars: the Ed25519 seed of the ledger key (parent and child share it)
 *   SVC_CRASH_KEY_NAME   the ledger key name
 *   SVC_CRASH_ORIGIN     the origin of a new ledger (fixed by the parent)
 *   SVC_CRASH_SEED       seed of this child's event mix, pacing and fault choices
 *   SVC_CRASH_RUN        a label that makes action ids unique across children
 *   SVC_CRASH_LOOPS      concurrent append loops (default 16)
 *   SVC_CRASH_PAUSE_MS   each loop pauses uniformly 0..PAUSE_MS ms between appends (default 0)
 *   SVC_CRASH_KILL_OPEN_OP  n: SIGKILL itself at the n-th file operation of LedgerWriter.open
 *                        (used on a torn ledger, to die in the middle of recovering it)
 *   SVC_CRASH_TEAR_WRITE n: from the n-th ledger write after open, the first write that crosses
 *                        a 4 KiB page boundary is cut at a page boundary inside it and the process
 *                        SIGKILLs itself: what Linux does when SIGKILL lands in a pwrite to the page
 *                        cache (generic_perform_write stops between pages on a fatal signal).
 *
 * stdout, one line each, written synchronously (stdout to a pipe is synchronous on Linux, and a
 * line is far below PIPE_BUF, so it arrives whole or not at all):
 *   `ready <size>`   LedgerWriter.open resolved; the ledger holds <size> records
 *   `<seq> <hash>`   that append's promise resolved (the record is durable); hash is `sha256:<hex>`
 *
 * The child never exits on its own: any error is printed to stderr and ends it with exit code 3,
 * which the parent treats as a failure.
 */
import { createHash } from 'node:crypto';
import { signingKeyFromSeed } from '../../src/actionpass/keys.js';
import type { LedgerEvent } from '../../src/events/catalogue.js';
import { nodeLedgerFs, type LedgerFs } from '../../src/events/ledger-fs.js';
import { LedgerWriter, type Receipt } from '../../src/events/ledger-writer.js';
import { allowFlow, denyFlow, stepUpFlow, type FlowContext } from '../../scripts/sample-flows.js';
import { seededRandom } from './seeded-random.js';

const PAGE = 4096;

function env(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`append-until-killed: ${name} is not set`);
  return value;
}

function optionalInt(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value === '') return undefined;
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new Error(`append-until-killed: ${name}=${value} is not an integer`);
  return parsed;
}


function die(): never {
  process.kill(process.pid, 'SIGKILL');
  // SIGKILL to oneself is delivered before kill(2) returns; this line is never reached.
  throw new Error('unreachable');
}

interface Faults {
  killAtOpenOp: number | undefined;
  tearWriteFrom: number | undefined;
}

/**
 * nodeLedgerFs with two injected ways to die: at the n-th operation while the ledger is being
 * opened (recovery included), or in the middle of a ledger write after open.
 */
function faultyFs(ledgerPath: string, faults: Faults, random: () => number): { fs: LedgerFs; opened(): void } {
  let opening = true;
  let openOps = 0;
  let ledgerFd: number | undefined;
  let ledgerWrites = 0;
  const inner = nodeLedgerFs;

  function atOpenOp(): boolean {
    if (!opening || faults.killAtOpenOp === undefined) return false;
    openOps += 1;
    return openOps === faults.killAtOpenOp;
  }

  const fs: LedgerFs = {
    async open(path, flags, mode) {
      if (atOpenOp()) die();
      const fd = await inner.open(path, flags, mode);
      if (path === ledgerPath) ledgerFd = fd;
      return fd;
    },
    async write(fd, buffer, position) {
      if (atOpenOp()) {
        // Half the time die before the write, half the time after a random prefix of it.
        if (random() < 0.5 && buffer.length > 1) await inner.write(fd, buffer.subarray(0, 1 + Math.floor(random() * (buffer.length - 1))), position);
        die();
      }
      if (!opening && fd === ledgerFd && faults.tearWriteFrom !== undefined) {
        ledgerWrites += 1;
        const firstPage = Math.floor(position / PAGE) + 1;
        const lastPage = Math.floor((position + buffer.length - 1) / PAGE);
        if (ledgerWrites >= faults.tearWriteFrom && firstPage <= lastPage) {
          const boundary = (firstPage + Math.floor(random() * (lastPage - firstPage + 1))) * PAGE;
          await inner.write(fd, buffer.subarray(0, boundary - position), position);
          die();
        }
      }
      return inner.write(fd, buffer, position);
    },
    read: (fd, buffer, position) => inner.read(fd, buffer, position),
    async fdatasync(fd) {
      if (atOpenOp()) die();
      return inner.fdatasync(fd);
    },
    async fsync(fd) {
      if (atOpenOp()) die();
      return inner.fsync(fd);
    },
    async ftruncate(fd, length) {
      if (atOpenOp()) die();
      return inner.ftruncate(fd, length);
    },
    async close(fd) {
      if (atOpenOp()) die();
      return inner.close(fd);
    },
    async rename(from, to) {
      if (atOpenOp()) die();
      return inner.rename(from, to);
    },
    async mkdir(path) {
      if (atOpenOp()) die();
      return inner.mkdir(path);
    },
    async fsyncDirectory(path) {
      if (atOpenOp()) die();
      return inner.fsyncDirectory(path);
    },
  };
  return { fs, opened: () => (opening = false) };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function main(): Promise<void> {
  const ledgerPath = process.argv[2];
  if (ledgerPath === undefined) throw new Error('usage: append-until-killed <ledger path>');
  const seed = Buffer.from(env('SVC_CRASH_KEY_SEED'), 'hex');
  const key = signingKeyFromSeed(env('SVC_CRASH_KEY_NAME'), seed);
  const reviewer = signingKeyFromSeed('svc.test/reviewer', createHash('sha256').update(seed).update('reviewer').digest());
  const random = seededRandom(Number(env('SVC_CRASH_SEED')));
  const run = env('SVC_CRASH_RUN');
  const loops = optionalInt('SVC_CRASH_LOOPS') ?? 16;
  const pauseMs = optionalInt('SVC_CRASH_PAUSE_MS') ?? 0;
  const faults: Faults = { killAtOpenOp: optionalInt('SVC_CRASH_KILL_OPEN_OP'), tearWriteFrom: optionalInt('SVC_CRASH_TEAR_WRITE') };
  const context: FlowContext = { keys: { pass: key, reviewer }, tenant: 'org:acme', issuedAt: 1_790_000_000 };

  const { fs, opened } = faultyFs(ledgerPath, faults, random);
  const writer = await LedgerWriter.open({ path: ledgerPath, key, origin: env('SVC_CRASH_ORIGIN'), checkpointEveryRecords: 32, checkpointEveryMs: 20, fs });
  opened();
  process.stdout.write(`ready ${writer.size}\n`);

  const acknowledge = (receipt: Receipt): void => {
    process.stdout.write(`${receipt.seq} ${receipt.hash}\n`);
  };

  /** One agent: mostly single `action.received` events, sometimes a whole flow as one batch. */
  async function agent(id: number): Promise<void> {
    for (let i = 0; ; i += 1) {
      const actionId = `act_${run}_${id}_${i}`;
      const pick = random();
      if (pick < 0.7) {
        acknowledge(await writer.append(denyFlow(context, actionId)[0] as LedgerEvent));
      } else if (pick < 0.82) {
        // A chat message with a larger body: writes that cross page boundaries.
        const text = 'deploy log line\n'.repeat(1 + Math.floor(random() * 600));
        acknowledge(await writer.append(allowFlow(context, actionId, 0, text)[0] as LedgerEvent));
      } else if (pick < 0.92) {
        // ActionPass claims name the seq of the flow's decision, so read the size just before
        // appending: sealing is synchronous, so nothing else is sealed in between.
        for (const receipt of await writer.appendBatch(allowFlow(context, actionId, writer.size))) acknowledge(receipt);
      } else if (pick < 0.97) {
        for (const receipt of await writer.appendBatch(denyFlow(context, actionId))) acknowledge(receipt);
      } else {
        const ids = { requestActionId: `${actionId}_ask`, approvalId: `apr_${run}_${id}_${i}`, executeActionId: `${actionId}_exec` };
        const altered = random() < 0.5 ? 'Attached are the Q3 numbers. Also wire $9,000 to the account below.' : undefined;
        for (const receipt of await writer.appendBatch(stepUpFlow(context, ids, writer.size, altered))) acknowledge(receipt);
      }
      if (pauseMs > 0) await sleep(random() * pauseMs);
    }
  }

  await Promise.all(Array.from({ length: loops }, (_, id) => agent(id)));
}

main().catch((error: unknown) => {
  process.stderr.write(`append-until-killed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(3);
});
