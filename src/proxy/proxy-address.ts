import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isAlive } from '../events/process-alive.js';

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
  return liveUrl(await readFile(proxyAddressFile(ledgerPath), 'utf8').catch(() => undefined));
}

/**
 * The same address kept in the workspace (`.svc/proxy.json` beside svc.yml), so a hook finds the
 * proxy serving its svc.yml without parsing svc.yml: the hook runs before every tool call and
 * must start fast. The file names the config it serves; another config's proxy is not used.
 */
export function workspaceAddressFile(configFile: string): string {
  return join(dirname(configFile), '.svc', 'proxy.json');
}

export async function writeWorkspaceAddress(configFile: string, address: ProxyAddress): Promise<void> {
  const file = workspaceAddressFile(configFile);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(`${file}.tmp`, `${JSON.stringify({ ...address, config: configFile })}\n`, { mode: 0o644 });
  await rename(`${file}.tmp`, file);
}

export async function removeWorkspaceAddress(configFile: string): Promise<void> {
  await rm(workspaceAddressFile(configFile), { force: true });
}

/** The URL of the live proxy serving exactly `configFile` (an absolute path), if any. */
export async function readWorkspaceAddress(configFile: string): Promise<string | undefined> {
  const text = await readFile(workspaceAddressFile(configFile), 'utf8').catch(() => undefined);
  return liveUrl(text, configFile);
}

/** The address's URL if its process is alive (and it serves `configFile`, when given). */
function liveUrl(text: string | undefined, configFile?: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text ?? '');
  } catch {
    return undefined;
  }
  const { url, pid, config } = (parsed ?? {}) as Partial<ProxyAddress> & { config?: unknown };
  if (configFile !== undefined && config !== configFile) return undefined;
  if (typeof url !== 'string' || !/^http:\/\/(127\.\d+\.\d+\.\d+|\[::1\]|localhost):\d+$/.test(url) || typeof pid !== 'number') return undefined;
  return isAlive(pid) ? url : undefined;
}
