import { readFile, stat } from 'node:fs/promises';
import { SvcError } from '../errors.js';

/** Exit codes of every command (DESIGN.md 8a). */
export const EXIT_OK = 0;
export const EXIT_CHECK_FAILED = 1;
export const EXIT_USAGE = 2;

export interface LedgerOptions {
  config?: string;
  ledger?: string;
}

/**
 * The ledger a command reads: `--ledger`, else `ledger.path` of the config (`--config`, or
 * `svc.yml` when it exists in the current directory), else `.svc/ledger.jsonl`.
 */
export async function resolveLedgerPath(options: LedgerOptions): Promise<string> {
  if (options.ledger) return options.ledger;
  // Loaded on use: start-up stays fast for commands that never read a config.
  const { DEFAULT_CONFIG_FILE, DEFAULT_LEDGER_PATH, loadConfig, resolveFromConfig } = await import('../config/load-config.js');
  const configFile = options.config ?? ((await exists(DEFAULT_CONFIG_FILE)) ? DEFAULT_CONFIG_FILE : undefined);
  if (!configFile) return DEFAULT_LEDGER_PATH;
  const loaded = await loadConfig(configFile);
  return resolveFromConfig(loaded, loaded.config.ledger.path);
}

/** `--pubkey` takes base64 of the 32-byte key, or a file holding it (bare, or a JSON object with `publicKey`). */
export async function readPublicKeyOption(value: string | undefined): Promise<Buffer | undefined> {
  if (value === undefined) return undefined;
  const { publicKeyFromBase64 } = await import('../actionpass/keys.js');
  if (/^[A-Za-z0-9+/]{43}=$/.test(value)) return publicKeyFromBase64(value);
  let text: string;
  try {
    text = (await readFile(value, 'utf8')).trim();
  } catch {
    throw new SvcError('pubkey_invalid', `--pubkey ${value} is neither base64 of a 32-byte Ed25519 key nor a readable file`);
  }
  if (text.startsWith('{')) {
    try {
      const parsed = JSON.parse(text) as { publicKey?: unknown };
      if (typeof parsed.publicKey === 'string') return publicKeyFromBase64(parsed.publicKey);
    } catch {
      // Reported below.
    }
    throw new SvcError('pubkey_invalid', `${value} is JSON without a base64 "publicKey" field`);
  }
  try {
    return publicKeyFromBase64(text);
  } catch {
    throw new SvcError('pubkey_invalid', `${value} does not hold base64 of a 32-byte Ed25519 public key`);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
