import { mkdir, open, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { LoadedConfig } from '../config/load-config.js';

/**
 * `hooks.residentProxy` in svc.yml (opt-in). A hook that had to decide locally starts
 * `svc proxy --port 0 --idle-exit <idleExit>` for the workspace in the background and returns;
 * the calls after it find the proxy through `.svc/proxy.json` and are forwarded, which costs a
 * fraction of a process that loads the engine. The proxy exits cleanly once idle, and the next
 * local call starts another.
 *
 * Hooks run in parallel, so a marker (`.svc/proxy.starting`) keeps them from starting a proxy
 * each; one that still loses the race for the ledger lock exits with `ledger_locked`, and the
 * marker's age lets a later call try again. Starting is best effort: it never changes a verdict.
 */
const STARTING_MARKER = 'proxy.starting';
const LOG_FILE = 'resident-proxy.log';
/** Longer than a proxy takes to start and publish its address. */
const START_GRACE_MS = 15_000;
/** How long the started proxy waits for hooks that hold the ledger lock. */
const LEDGER_WAIT = '10s';

export async function startResidentProxy(loaded: LoadedConfig, cliPath: string): Promise<boolean> {
  const settings = loaded.config.hooks.residentProxy;
  if (settings === undefined) return false;
  const configFile = resolve(loaded.file);
  const svcDir = join(dirname(configFile), '.svc');
  if (!(await claimStart(join(svcDir, STARTING_MARKER)))) return false;
  // Nobody watches a background process: what it says (why it could not start, reloads, its
  // idle exit) is appended to a log beside its address file.
  const log = await open(join(svcDir, LOG_FILE), 'a', 0o600);
  // Loaded only here: every other hook call would pay for a module it does not use.
  const { spawn } = await import('node:child_process');
  try {
    const child = spawn(process.execPath, [cliPath, 'proxy', '--config', configFile, '--port', '0', '--idle-exit', settings.idleExit, '--wait-for-ledger', LEDGER_WAIT], {
      cwd: dirname(configFile),
      detached: true,
      stdio: ['ignore', log.fd, log.fd],
    });
    child.on('error', () => undefined);
    child.unref();
  } finally {
    await log.close();
  }
  return true;
}

/** Creates the marker; an existing one younger than the grace period means a start is under way. */
async function claimStart(marker: string): Promise<boolean> {
  await mkdir(dirname(marker), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      await (await open(marker, 'wx', 0o600)).close();
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
      const info = await stat(marker).catch(() => undefined);
      if (info !== undefined && Date.now() - info.mtimeMs < START_GRACE_MS) return false;
      await rm(marker, { force: true });
    }
  }
  return false;
}
