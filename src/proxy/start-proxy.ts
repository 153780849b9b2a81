import type { FastifyInstance } from 'fastify';
import { demoHandlers } from '../adapters/demo-handlers.js';
import { loadConfig, resolveFromConfig } from '../config/load-config.js';
import { buildProxyApp } from './app.js';
import { watchConfig, type ConfigWatcher } from './config-watcher.js';
import { Enforcer } from './enforcer.js';
import { assertLoopbackBind } from './loopback-guard.js';
import { removeProxyAddress, writeProxyAddress } from './proxy-address.js';

export interface ProxyOptions {
  configFile: string;
  host?: string;
  port?: number;
  /** Where reload reports go (stderr for the CLI). */
  report?: (message: string) => void;
}

export interface RunningProxy {
  url: string;
  app: FastifyInstance;
  enforcer: Enforcer;
  close(): Promise<void>;
}

/** Starts `svc proxy`: config, loopback check, ledger and state, demo handlers, HTTP, reload. */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const loaded = await loadConfig(options.configFile);
  const host = options.host ?? loaded.config.proxy.host;
  const port = options.port ?? loaded.config.proxy.port;
  assertLoopbackBind(host);
  const handlers = demoHandlers({ outboxDir: resolveFromConfig(loaded, loaded.config.adapters.outbox), sandboxDir: resolveFromConfig(loaded, loaded.config.adapters.sandbox) });
  const enforcer = await Enforcer.open(loaded, { handlers });
  const report = options.report ?? ((message: string) => process.stderr.write(`svc proxy: ${message}\n`));
  let app: FastifyInstance | undefined;
  let watcher: ConfigWatcher | undefined;
  try {
    app = buildProxyApp(enforcer);
    await app.listen({ host, port });
    watcher = watchConfig(
      options.configFile,
      async (next) => {
        const receipt = await enforcer.reload(next);
        report(`reloaded ${options.configFile}: policy ${enforcer.policyHash} in force from ledger seq ${receipt.seq}`);
      },
      report,
    );
  } catch (error) {
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
  return {
    url,
    app: running,
    enforcer,
    async close() {
      watcher?.close();
      await removeProxyAddress(enforcer.writer.path);
      await running.close();
      await enforcer.close();
    },
  };
}
