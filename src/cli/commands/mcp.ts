import type { Command } from 'commander';
import { SvcError } from '../../errors.js';
import { EXIT_CHECK_FAILED } from '../context.js';
import { printJson, printLine } from '../output.js';

interface ConfigOptions {
  config: string;
  json?: boolean;
}

const CONFIG_HELP = 'svc.yml to read mcp, keys, tenant and ledger from';
const AGENT_ID = /^agent:[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/;

async function load(file: string) {
  const { loadConfig } = await import('../../config/load-config.js');
  return loadConfig(file);
}

export function registerMcp(program: Command): void {
  const mcp = program
    .command('mcp')
    .description('the MCP wrapper: policy, ActionPass and tool-definition pins in front of an MCP server')
    .addHelpText('after', `
An agent talks to svc mcp serve as if it were the MCP server. Every tool definition is hashed and
checked against its signed pin in svc.mcp.lock (commit it); every tools/call goes through the
policy of svc.yml as tool mcp.<server>.<tool> on resource mcp:<server>, and is recorded in the
ledger. See docs/mcp.md.

Examples:
  svc mcp serve --server files
  svc mcp serve --name everything -- npx mcp-server-everything
  svc mcp pins list
  svc mcp pins approve files --tool write_file
  svc mcp pins reset files --all`);

  mcp
    .command('serve')
    .description('serve MCP on stdin/stdout in front of one upstream server (from svc.yml, or the command after --)')
    .argument('[command...]', 'an upstream command and its arguments, after --')
    .option('--config <file>', CONFIG_HELP, 'svc.yml')
    .option('--server <name>', 'the server from mcp.servers of svc.yml (default: the only one declared)')
    .option('--name <name>', 'the name pins and policy use for a server given after --')
    .option('--agent <agentId>', 'record calls as this agent:<name> (default: agent:<the MCP client name>)')
    .option('--ledger <file>', 'a ledger of its own (default: ledger.path of svc.yml), when another svc process writes that one')
    .addHelpText('after', `
stdout carries MCP only; svc logs to stderr. Changed or unpinned tools are left out of tools/list
and their calls are denied (mcp_tool_definition_changed, mcp_tool_unpinned); a denial reaches the
agent as a tool result with isError and the reason. Ends when the client closes stdin. While it
runs it holds the ledger and serves the proxy's loopback API on a free port (its address beside
the ledger), so svc approvals approve and the hooks reach the ledger through it.

Examples (an MCP client's server entry):
  { "command": "svc", "args": ["mcp", "serve", "--server", "files"] }
  { "command": "svc", "args": ["mcp", "serve", "--name", "everything", "--", "npx", "mcp-server-everything"] }`)
    .action(async (command: string[], options: ConfigOptions & { server?: string; name?: string; agent?: string; ledger?: string }) => {
      if (options.agent !== undefined && !AGENT_ID.test(options.agent)) throw new SvcError('usage', `--agent ${JSON.stringify(options.agent)} is not agent:<name>`);
      const { serveMcp } = await import('../../mcp/serve-mcp.js');
      const running = await serveMcp(await load(options.config), {
        command,
        ...(options.server !== undefined && { server: options.server }),
        ...(options.name !== undefined && { name: options.name }),
        ...(options.agent !== undefined && { agent: options.agent }),
        ...(options.ledger !== undefined && { ledger: options.ledger }),
      });
      const stop = () => void running.close();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      await running.done;
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    });

  const pins = mcp
    .command('pins')
    .description('review and accept tool-definition pins (svc.mcp.lock)')
    .addHelpText('after', `
Each pin is signed with the workspace's mcp-pin key (.svc/keys, listed in .svc/trust.json), so it
verifies offline. These commands are for the person reviewing the agent, not for the agent.

Examples:
  svc mcp pins list --json
  svc mcp pins approve files --tool write_file --hash sha256:…   # the hash you reviewed
  svc mcp pins approve files --all --dry-run
  svc mcp pins reset files --tool write_file`);

  pins
    .command('list')
    .description('list the pins and whether each one verifies')
    .option('--config <file>', CONFIG_HELP, 'svc.yml')
    .option('--server <name>', 'only this server')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', `
Exit status 1 when any entry fails verification: the wrapper then denies every call until the lock
is restored from version control or the entries are approved again.

Example:
  svc mcp pins list --server files`)
    .action(async (options: ConfigOptions & { server?: string }) => {
      const { listPins } = await import('../../mcp/pins-admin.js');
      const listing = await listPins(await load(options.config), options.server);
      if (!listing.valid) process.exitCode = EXIT_CHECK_FAILED;
      if (options.json) return printJson(listing);
      printLine(`${listing.lockFile}: ${listing.pins.length} ${listing.pins.length === 1 ? 'pin' : 'pins'}${listing.valid ? '' : ' (THE LOCK DOES NOT VERIFY: every call is denied)'}`);
      for (const pin of listing.pins) {
        printLine(`  ${pin.status === 'valid' ? 'ok ' : 'BAD'} ${pin.server}/${pin.tool}  ${pin.definitionHash}  ${pin.method} by ${pin.pinnedBy} at ${pin.pinnedAt}`);
        if (pin.problem !== undefined) printLine(`      ${pin.status}: ${pin.problem}`);
      }
      return undefined;
    });

  pins
    .command('approve')
    .description("accept the definitions a server presents now: sign them into the lock")
    .argument('[server]', 'the server from mcp.servers of svc.yml (default: the only one)')
    .argument('[command...]', 'for a server not in svc.yml: its command after --, with --name')
    .option('--config <file>', CONFIG_HELP, 'svc.yml')
    .option('--tool <names...>', 'the tools to approve')
    .option('--all', 'approve every changed or unpinned tool of the server')
    .option('--hash <sha256>', 'approve only if the tool presents exactly this definition hash (the one you reviewed)')
    .option('--as <user>', 'who approves, user:<email> (default: os:<login>)')
    .option('--name <name>', 'the name of a server given after --')
    .option('--dry-run', 'show what would be approved and change nothing')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', `
Starts the server, reads every page of tools/list, and signs the named definitions with the
mcp-pin key. Exit status 1 when --hash does not match or a named tool is not listed.

Examples:
  svc mcp pins approve files --tool write_file
  svc mcp pins approve files --tool write_file --hash sha256:3b1f…
  svc mcp pins approve --name weather --all -- node weather-server.mjs`)
    .action(async (server: string | undefined, command: string[], options: ConfigOptions & { tool?: string[]; all?: boolean; hash?: string; as?: string; name?: string; dryRun?: boolean }) => {
      const { approvePins } = await import('../../mcp/pins-admin.js');
      // With --name the server is the command after --, whose first word commander takes for [server].
      if (options.name !== undefined && server !== undefined) {
        command = [server, ...command];
        server = undefined;
      }
      let result;
      try {
        result = await approvePins(await load(options.config), {
          command,
          ...(server !== undefined && { server }),
          ...(options.name !== undefined && { name: options.name }),
          ...(options.tool !== undefined && { tools: options.tool }),
          ...(options.all !== undefined && { all: options.all }),
          ...(options.hash !== undefined && { hash: options.hash }),
          ...(options.as !== undefined && { as: options.as }),
          ...(options.dryRun !== undefined && { dryRun: options.dryRun }),
        });
      } catch (error) {
        // A definition other than the one reviewed, or a tool the server does not list: the check failed.
        if (error instanceof SvcError && ['mcp_definition_hash_mismatch', 'mcp_tool_unknown', 'mcp_tool_definition_invalid'].includes(error.code)) {
          process.exitCode = EXIT_CHECK_FAILED;
          if (options.json) return printJson({ error: { code: error.code, message: error.message } });
          process.stderr.write(`svc: ${error.message} [${error.code}]\n`);
          return undefined;
        }
        throw error;
      }
      if (options.json) return printJson(result);
      const verb = result.dryRun ? 'would approve' : 'approved';
      if (result.approved.length === 0) printLine(`nothing to approve: every tool of ${result.server} is pinned as presented`);
      for (const line of result.approved) {
        const before = line.pinnedHash === undefined ? 'unpinned' : `${line.pinnedHash}${line.changedFields.length > 0 ? ` (changed: ${line.changedFields.join(', ')})` : ''}`;
        printLine(`${verb} ${result.server}/${line.tool}: ${before} -> ${line.presentedHash}`);
      }
      if (!result.dryRun && result.approved.length > 0) printLine(`signed as ${result.pinnedBy} into ${result.lockFile}; a running svc mcp serve uses it on the next call`);
      return undefined;
    });

  pins
    .command('reset')
    .description('remove pins: the tools are pinned again on first use, or must be approved')
    .argument('<server>', 'the server whose pins to remove')
    .option('--config <file>', CONFIG_HELP, 'svc.yml')
    .option('--tool <names...>', 'the tools whose pins to remove')
    .option('--all', 'remove every pin of the server')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', `
With mcp.firstUse: pin, the next session pins whatever the server presents then: review it first.

Example:
  svc mcp pins reset files --tool write_file`)
    .action(async (server: string, options: ConfigOptions & { tool?: string[]; all?: boolean }) => {
      const { resetPins } = await import('../../mcp/pins-admin.js');
      const result = await resetPins(await load(options.config), server, { ...(options.tool !== undefined && { tools: options.tool }), ...(options.all !== undefined && { all: options.all }) });
      if (options.json) return printJson(result);
      printLine(result.removed.length === 0 ? `no pin of ${server} matched; nothing changed` : `removed ${result.removed.length} ${result.removed.length === 1 ? 'pin' : 'pins'} of ${server}: ${result.removed.join(', ')}`);
      return undefined;
    });
}
