import path from 'node:path';
import type { LoadedConfig } from '../config/load-config.js';
import { MCP_SERVER_NAME } from '../config/mcp-schema.js';
import { SvcError } from '../errors.js';
import type { UpstreamSpec } from './upstream-transport.js';

/**
 * Which upstream a command means: `--server <name>` from svc.yml's `mcp.servers`, the only one
 * there when there is one, or a command given after `--` under the name `--name` gives it (the
 * name its pins are kept under).
 */
export function resolveServerSpec(loaded: LoadedConfig, options: { server?: string; name?: string; command?: readonly string[] }): UpstreamSpec {
  const baseDir = path.dirname(path.resolve(loaded.file));
  const servers = loaded.config.mcp.servers;
  const command = options.command ?? [];
  if (command.length > 0) {
    const name = options.name ?? options.server;
    if (name === undefined) throw new SvcError('usage', 'a server given after -- needs a name for its pins: add --name <name>');
    if (!MCP_SERVER_NAME.test(name)) throw new SvcError('usage', `--name ${JSON.stringify(name)}: a server name is lowercase letters, digits, "_" or "-", starting with a letter (at most 64)`);
    if (servers[name] !== undefined) throw new SvcError('usage', `${name} is already declared in mcp.servers of ${loaded.file}; drop the command after -- or choose another --name`);
    const [executable, ...args] = command as [string, ...string[]];
    return { name, config: { command: executable, args }, baseDir };
  }
  const names = Object.keys(servers);
  const name = options.server ?? options.name ?? (names.length === 1 ? names[0] : undefined);
  if (name === undefined) {
    throw new SvcError('usage', names.length === 0 ? `${loaded.file} declares no mcp.servers; declare one there or give the command after --, for example: svc mcp serve --name files -- npx mcp-server-filesystem .` : `${loaded.file} declares several MCP servers (${names.join(', ')}); choose one with --server <name>`);
  }
  const config = servers[name];
  if (config === undefined) throw new SvcError('mcp_server_unknown', `no MCP server ${JSON.stringify(name)} in mcp.servers of ${loaded.file}${names.length > 0 ? `; declared: ${names.join(', ')}` : ''}`);
  return { name, config, baseDir };
}
