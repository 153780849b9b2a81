import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { demoHandlers } from '../adapters/demo-handlers.js';
import { retryWhileLocked } from '../events/writer-lock.js';
import { loadConfig, resolveFromConfig } from '../config/load-config.js';
import { buildProxyApp } from './app.js';
import { watchFileChanges, type FileWatcher } from './file-watcher.js';
import { Enforcer } from './enforcer.js';
import { assertLoopbackBind } from './loopback-guard.js';
import { removeProxyAddress, removeWorkspaceAddress, writeProxyAddress, writeWorkspaceAddress } from './proxy-address.js';
import { monotonicMs } from '../monotonic-clock.js';

export interface ProxyOptions {
  configFile: string;
  host?: string;
  port?: number;
  /** Where reload reports go (stderr for the CLI). */
  report?: (message: string) => void;
  /** Resolve `idle` once this long passes without a request (`--idle-exit`). */
  idleExitMs?: number;
  /** Wait up to this long for another writer, such as a hook, to release the ledger (`--wait-for-ledger`). */
  ledgerWaitMs?: number;
}

export interface RunningProxy {
  url: string;
  app: FastifyInstance;
  enforcer: Enforcer;
  /** Resolves when the proxy has had no request for `idleExitMs`; never without it. */
  idle: Promise<void>;
  close(): Promise<void>;
}

/** Starts `svc proxy`: config, loopback check, ledger and state, demo handlers, HTTP, reload. */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  // A write past RLIMIT_FSIZE must stay an EFBIG error (the ledger fails closed with 503), not kill
  // the process: signal-exit, under proper-lockfile, re-raises SIGXFSZ when it is its only listener.
  process.on('SIGXFSZ', () => undefined);
  let loaded = await loadConfig(options.configFile);
  const host = options.host ?? loaded.config.proxy.host;
  const port = options.port ?? loaded.config.proxy.port;
  assertLoopbackBind(host);
  const handlers = demoHandlers({ outboxDir: resolveFromConfig(loaded, loaded.config.adapters.outbox), sandboxDir: resolveFromConfig(loaded, loaded.config.adapters.sandbox) });
  const enforcer = await retryWhileLocked(() => Enforcer.open(loaded, { handlers }), monotonicMs() + (options.ledgerWaitMs ?? 0));
  const report = options.report ?? ((message: string) => process.stderr.write(`svc proxy: ${message}\n`));
  let app: FastifyInstance | undefined;
  const watchers: FileWatcher[] = [];
  let resolveIdle = (): void => undefined;
  const idle = new Promise<void>((resolve) => (resolveIdle = resolve));
  let idleTimer: NodeJS.Timeout | undefined;
  try {
    app = buildProxyApp(enforcer, { hookConfig: () => loaded });
    idleTimer = options.idleExitMs === undefined ? undefined : watchIdle(app, options.idleExitMs, resolveIdle);
    await app.listen({ host, port });
    const configFile = options.configFile;
    watchers.push(
      watchFileChanges(
        configFile,
        async () => {
          try {
            const next = await loadConfig(configFile);
            const receipt = await enforcer.reload(next);
            loaded = next;
            report(`reloaded ${configFile}: policy ${enforcer.policyHash} in force from ledger seq ${receipt.seq}`);
          } catch (error) {
            report(`${configFile} not reloaded, the running policy stays in force: ${(error as Error).message}`);
          }
        },
        report,
      ),
      // A revoked or added key takes effect at once: revoking the active ActionPass key moves
      // signing to a fresh key before anything else is issued.
      watchFileChanges(resolveFromConfig(loaded, loaded.config.keys.trust), async () => report(await enforcer.refreshTrust()), report),
    );
  } catch (error) {
    clearInterval(idleTimer);
    await app?.close();
    await enforcer.close();
    throw error;
  }
  const address = app.server.address();
  const boundPort = typeof address === 'object' && address !== null ? address.port : port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const running = app;
  const url = `http://${urlHost}:${boundPort}`;
  await writeProxyAddress(enforcer.writer.path, { url, pid: process.pid });
  const absoluteConfig = resolve(options.configFile);
  await writeWorkspaceAddress(absoluteConfig, { url, pid: process.pid });
  return {
    url,
    app: running,
    enforcer,
    idle,
    async close() {
      clearInterval(idleTimer);
      for (const watcher of watchers) watcher.close();
      await removeProxyAddress(enforcer.writer.path);
      await removeWorkspaceAddress(absoluteConfig);
      await running.close();
      await enforcer.close();
    },
  };
}

/** Checks a few times per idle period whether a request started or ended within it. */
function watchIdle(app: FastifyInstance, idleExitMs: number, onIdle: () => void): NodeJS.Timeout {
  let lastActivity = Date.now();
  const touch = async (): Promise<void> => {
    lastActivity = Date.now();
  };
  app.addHook('onRequest', touch);
  app.addHook('onResponse', touch);
  return setInterval(() => {
    if (Date.now() - lastActivity >= idleExitMs) onIdle();
  }, Math.max(50, Math.min(idleExitMs / 4, 30_000)));
}
