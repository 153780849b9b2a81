import path from 'node:path';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig } from '../config/mcp-schema.js';
import { SvcError } from '../errors.js';

/**
 * How svc reaches an upstream MCP server, with the official SDK's client transports: a child
 * process over stdio, or a streamable-HTTP endpoint. The child gets the SDK's minimal default
 * environment (PATH, HOME, USER, LOGNAME, SHELL, TERM) plus only the variables svc.yml names,
 * so credentials meant for svc or for other servers do not leak into it. Its stderr is svc's.
 */
export interface UpstreamSpec {
  /** The server name: `mcp.<server>.<tool>`, `mcp:<server>`, the pins' server. */
  name: string;
  config: McpServerConfig;
  /** Directory relative `cwd` is resolved against (that of svc.yml). */
  baseDir: string;
}

/** Bytes one upstream message may take before the SDK transport drops the connection. */
export const UPSTREAM_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

export function upstreamTransport(spec: UpstreamSpec, env: NodeJS.ProcessEnv = process.env): Transport {
  const { config } = spec;
  if (config.url !== undefined) {
    const headers: Record<string, string> = {};
    if (config.bearerTokenEnv !== undefined) {
      const token = env[config.bearerTokenEnv];
      if (token === undefined || token === '') throw new SvcError('mcp_upstream_credential_missing', `the environment variable ${config.bearerTokenEnv} named by mcp.servers.${spec.name}.bearerTokenEnv is not set`);
      headers.authorization = `Bearer ${token}`;
    }
    return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers } });
  }
  if (config.command === undefined) throw new SvcError('config_invalid', `mcp.servers.${spec.name} names neither command nor url`);
  const passed: Record<string, string> = {};
  for (const name of config.env ?? []) {
    const value = env[name];
    if (value !== undefined) passed[name] = value;
  }
  return new StdioClientTransport({
    command: config.command,
    args: config.args ?? [],
    env: { ...getDefaultEnvironment(), ...passed },
    stderr: 'inherit',
    ...(config.cwd !== undefined && { cwd: path.resolve(spec.baseDir, config.cwd) }),
    maxBufferSize: UPSTREAM_MAX_MESSAGE_BYTES,
  });
}

/** A one-line description for logs and errors, without arguments (they may hold paths or tokens). */
export function describeUpstream(spec: UpstreamSpec): string {
  return spec.config.url !== undefined ? `${spec.name} (${new URL(spec.config.url).origin})` : `${spec.name} (${spec.config.command})`;
}
