import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { isAlive } from '../events/writer-lock.js';

/**
 * Where a running proxy listens, kept beside its ledger (`<ledger>.proxy.json`) so the approval
 * commands find it whatever port it bound (`--port 0`, `--port` on the command line). Removed on
 * clean shutdown; a stale file (its pid gone) is ignored.
 */
export interface ProxyAddress {
  url: string;
  pid: number;
}

export function proxyAddressFile(ledgerPath: string): string {
  return `${ledgerPath}.proxy.json`;
}

export async function writeProxyAddress(ledgerPath: string, address: ProxyAddress): Promise<void> {
  const file = proxyAddressFile(ledgerPath);
  await writeFile(`${file}.tmp`, `${JSON.stringify(address)}\n`, { mode: 0o644 });
  await rename(`${file}.tmp`, file);
}

export async function removeProxyAddress(ledgerPath: string): Promise<void> {
  await rm(proxyAddressFile(ledgerPath), { force: true });
}

/** The URL of the proxy running on this ledger, if its address file names a live process. */
export async function readProxyAddress(ledgerPath: string): Promise<string | undefined> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(proxyAddressFile(ledgerPath), 'utf8'));
  } catch {
    return undefined;
  }
  const { url, pid } = (parsed ?? {}) as Partial<ProxyAddress>;
  if (typeof url !== 'string' || !/^http:\/\/(127\.\d+\.\d+\.\d+|\[::1\]|localhost):\d+$/.test(url) || typeof pid !== 'number') return undefined;
  return isAlive(pid) ? url : undefined;
}
