import type { Readable, Writable } from 'node:stream';
import type { LoadedConfig } from '../config/load-config.js';
import { resolveFromConfig } from '../config/load-config.js';
import { resolve } from 'node:path';
import { SvcError } from '../errors.js';
import { buildProxyApp } from '../proxy/app.js';
import { Enforcer } from '../proxy/enforcer.js';
import { removeProxyAddress, removeWorkspaceAddress, writeProxyAddress, writeWorkspaceAddress } from '../proxy/proxy-address.js';
import { McpWrapper } from './mcp-wrapper.js';
import { PinBook } from './pin-book.js';
import { resolveServerSpec } from './server-spec.js';
import { StdioLineTransport } from './stdio-line-transport.js';
import { describeUpstream, upstreamTransport } from './upstream-transport.js';

/**
 * `svc mcp serve`: opens the enforcement spine on the workspace's ledger, reads the pin lock, and
 * serves MCP on stdin/stdout in front of one upstream server until the agent closes the session.
 * stdout carries the protocol only; everything svc has to say goes to stderr.
 *
 * The wrapper holds the ledger's writer lock while it runs, so it also serves the proxy's loopback
 * API on a free port and leaves its address beside the ledger, as `svc proxy` does: `svc approvals
 * approve` (a step_up of an MCP call) and the runtime hooks reach the ledger through it.
 */
export interface ServeOptions {
  server?: string;
  name?: string;
  command?: readonly string[];
  agent?: string;
  /** A ledger of this wrapper's own instead of ledger.path of svc.yml. */
  ledger?: string;
  input?: Readable;
  output?: Writable;
  log?: (line: string) => void;
}

export interface RunningWrapper {
  /** Resolves when the session ended and the ledger is closed. */
  done: Promise<void>;
  close(): Promise<void>;
}

export async function serveMcp(loaded: LoadedConfig, options: ServeOptions = {}): Promise<RunningWrapper> {
  const spec = resolveServerSpec(loaded, options);
  const { config } = loaded;
  const log = options.log ?? ((line: string) => process.stderr.write(`svc mcp ${spec.name}: ${line}\n`));
  const pins = new PinBook({
    lockFile: resolveFromConfig(loaded, config.mcp.lock),
    trustFile: resolveFromConfig(loaded, config.keys.trust),
    keysDir: resolveFromConfig(loaded, config.keys.dir),
    tenant: config.tenant,
  });
  await pins.refresh();
  const standing = pins.serverPins(spec.name);
  if (!standing.ok) log(`the pin lock cannot be used, so every tool call will be denied: ${standing.message}`);
  // Signed in this thread: calls come one or a few at a time, where a worker's hop costs more than it saves.
  const enforcer = await Enforcer.open(options.ledger === undefined ? loaded : { ...loaded, config: { ...config, ledger: { ...config.ledger, path: resolve(options.ledger) } } }, { signer: 'in-thread' }).catch((error: unknown) => {
    if (error instanceof SvcError && error.code === 'ledger_locked') {
      throw new SvcError('ledger_locked', `${error.message}; another svc process (a proxy, or svc mcp serve for another server) writes this ledger: give this wrapper its own with --ledger <file>`);
    }
    throw error;
  });
  const app = buildProxyApp(enforcer, { hookConfig: () => loaded });
  let url: string;
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
    await writeProxyAddress(enforcer.writer.path, { url, pid: process.pid });
    if (options.ledger === undefined) await writeWorkspaceAddress(resolve(loaded.file), { url, pid: process.pid });
  } catch (error) {
    await app.close().catch(() => undefined);
    await enforcer.close();
    throw error;
  }
  const wrapper = new McpWrapper({
    server: spec.name,
    upstream: () => upstreamTransport(spec),
    downstream: new StdioLineTransport(options.input ?? process.stdin, options.output ?? process.stdout, config.mcp.maxMessageBytes),
    enforcer,
    pins,
    firstUse: config.mcp.firstUse,
    unpinned: config.mcp.unpinned,
    requestTimeoutMs: config.mcp.requestTimeoutSeconds * 1000,
    ...(options.agent !== undefined && { agent: options.agent }),
    log,
  });
  log(`serving ${describeUpstream(spec)}; ledger ${enforcer.writer.path} (approvals and hooks via ${url}), lock ${pins.places.lockFile}, first use: ${config.mcp.firstUse}`);
  const done = wrapper.run().finally(async () => {
    await removeProxyAddress(enforcer.writer.path).catch(() => undefined);
    if (options.ledger === undefined) await removeWorkspaceAddress(resolve(loaded.file)).catch(() => undefined);
    await app.close().catch(() => undefined);
    await enforcer.close();
  });
  return { done, close: async () => { await wrapper.close(); await done; } };
}
