import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SvcError } from '../errors.js';
import { keyFileName, loadOrCreateKey, readKeyFile, type SigningKey } from '../actionpass/keys.js';
import { ChainChecker, isDefect } from './chain-checker.js';
import type { RecordOf } from './catalogue.js';
import { LedgerWriter, type OpenLedgerOptions } from './ledger-writer.js';
import { readLines } from './line-reader.js';

/**
 * Where a ledger's signing key lives: `<ledger dir>/keys/`, mode 0600, named after the key's C2SP
 * name, which is the ledger origin. The genesis record names the key, so the key of an existing
 * ledger is always found from the ledger itself.
 */
export function keysDirectoryOf(ledgerPath: string): string {
  return join(dirname(ledgerPath), 'keys');
}

/** The genesis record of a ledger, if its first line is a valid one. */
export async function readGenesis(ledgerPath: string): Promise<RecordOf<'ledger.genesis'> | undefined> {
  const checker = new ChainChecker(undefined, { parsedRecords: true });
  for await (const lines of readLines(ledgerPath, { chunkBytes: 64 * 1024 })) {
    const first = lines[0];
    if (!first) return undefined;
    const checked = checker.check(first);
    if (isDefect(checked) || checked.record.type !== 'ledger.genesis') return undefined;
    return checked.record;
  }
  return undefined;
}

/** The private key of an existing ledger, found by the names its genesis lists. */
export async function loadLedgerKey(ledgerPath: string): Promise<SigningKey> {
  const genesis = await readGenesis(ledgerPath);
  if (!genesis) throw new SvcError('ledger_invalid', `${ledgerPath} does not start with a valid genesis record`);
  return keyOfGenesis(ledgerPath, genesis);
}

/** The private key of a ledger whose genesis record is `genesis` (read once by the caller). */
async function keyOfGenesis(ledgerPath: string, genesis: RecordOf<'ledger.genesis'>): Promise<SigningKey> {
  const dir = keysDirectoryOf(ledgerPath);
  for (const entry of genesis.data.keys) {
    try {
      const key = await readKeyFile(join(dir, keyFileName(entry.name)));
      if (key.publicKey.toString('base64') === entry.publicKey) return key;
    } catch (error) {
      if (!(error instanceof SvcError && error.code === 'key_file_missing')) throw error;
    }
  }
  throw new SvcError('key_missing', `none of the keys listed in the genesis of ${ledgerPath} (${genesis.data.keys.map((key) => key.name).join(', ')}) is in ${dir}`);
}

/**
 * Opens the ledger at `ledgerPath` for writing with its own key, creating ledger and key when
 * neither exists yet. The origin of a new ledger is `svc.local/<tenant>/<random id>`.
 */
export async function openLedgerWithKey(ledgerPath: string, options: { tenant: string } & Omit<OpenLedgerOptions, 'path' | 'key' | 'origin'>): Promise<LedgerWriter> {
  const genesis = await readGenesis(ledgerPath).catch(() => undefined);
  if (genesis) return LedgerWriter.open({ ...options, path: ledgerPath, key: await keyOfGenesis(ledgerPath, genesis) });
  const origin = `svc.local/${options.tenant}/${randomBytes(6).toString('hex')}`;
  const key = await loadOrCreateKey(keysDirectoryOf(ledgerPath), origin);
  try {
    return await LedgerWriter.open({ ...options, path: ledgerPath, key, origin });
  } catch (error) {
    // Another writer created the ledger, with a key of its own, between our look for a genesis and
    // our taking the lock (two hook calls on a fresh workspace): its key is the one to write with,
    // and the one made here signs nothing.
    if (!(error instanceof SvcError && error.code === 'key_mismatch')) throw error;
    await rm(join(keysDirectoryOf(ledgerPath), keyFileName(key.name)), { force: true });
    return LedgerWriter.open({ ...options, path: ledgerPath, key: await loadLedgerKey(ledgerPath) });
  }
}
