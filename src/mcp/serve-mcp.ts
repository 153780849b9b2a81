import type { Readable, Writable } from 'node:stream';
import type { LoadedConfig } from '../config/load-config.js';
import { resolveFromConfig } from '../config/load-config.js';
import { Enforcer } from '../proxy/enforcer.js';
import { McpWrapper } from './mcp-wrapper.js';
import { PinBook } from './pin-book.js';
import { resolveServerSpec } from './server-spec.js';
import { StdioLineTransport } from './stdio-line-transport.js';
import { describeUpstream, upstreamTransport } from './upstream-transport.js';

/**
 * `svc mcp serve`: opens the enforcement spine on the workspace's ledger, reads the pin lock, and
 * serves MCP on stdin/stdout in front of one upstream server until the agent closes the session.
 * stdout carries the protocol only; everything svc has to say goes to stderr.
 */
export interface ServeOptions {
  server?: string;
  name?: string;
  command?: readonly string[];
  agent?: string;
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
  const enforcer = await Enforcer.open(loaded, { signer: 'in-thread' });
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
  log(`serving ${describeUpstream(spec)}; ledger ${enforcer.writer.path}, lock ${pins.places.lockFile}, first use: ${config.mcp.firstUse}`);
  const done = wrapper.run().finally(() => enforcer.close());
  return { done, close: async () => { await wrapper.close(); await done; } };
}
