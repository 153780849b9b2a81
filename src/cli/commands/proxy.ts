import type { Command } from 'commander';
import { SvcError } from '../../errors.js';
import { parseWindow } from '../../policy/window.js';
import { printLine } from '../output.js';

export function registerProxy(program: Command): void {
  program
    .command('proxy')
    .description('run the loopback enforcement proxy: /authorize, /actions, approvals, /healthz')
    .option('--config <file>', 'svc.yml to run with', 'svc.yml')
    .option('--host <address>', 'loopback address to bind (default: proxy.host of svc.yml, 127.0.0.1)')
    .option('--port <port>', 'port to bind, 0 for any free port (default: proxy.port of svc.yml, 7331)')
    .option('--json', 'print the listening address as one JSON line')
    .option('--idle-exit <duration>', 'exit cleanly after this long without a request, for example 30m')
    .option('--wait-for-ledger <duration>', 'if another svc process (a hook) holds the ledger, wait up to this long for it, for example 10s')
    .addHelpText('after', `
The proxy decides every action posted to it with the policy of svc.yml, records each step in the
ledger before answering, and reloads svc.yml when it changes (an invalid file is reported and the
running policy stays). It binds loopback only and refuses non-loopback Host headers and
cross-origin browser requests. Stop it with Ctrl-C: it writes a final checkpoint.

Examples:
  svc proxy --config svc.yml
  curl -s localhost:7331/authorize -H 'content-type: application/json' -d @action.json
  svc proxy --config svc.yml --port 0 --json     # pick a free port, print {"url": ...}
  svc proxy --port 0 --idle-exit 30m              # what a hook starts with hooks.residentProxy`)
    .action(async (options: { config: string; host?: string; port?: string; json?: boolean; idleExit?: string; waitForLedger?: string }) => {
      const { startProxy } = await import('../../proxy/start-proxy.js');
      const port = options.port === undefined ? undefined : Number(options.port);
      if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535)) throw new SvcError('usage', `--port ${options.port} is not a port number (0-65535)`);
      const idleExitMs = durationOption('--idle-exit', options.idleExit);
      const ledgerWaitMs = durationOption('--wait-for-ledger', options.waitForLedger);
      const proxy = await startProxy({
        configFile: options.config,
        ...(options.host !== undefined && { host: options.host }),
        ...(port !== undefined && { port }),
        ...(idleExitMs !== undefined && { idleExitMs }),
        ...(ledgerWaitMs !== undefined && { ledgerWaitMs }),
      });
      const health = proxy.enforcer.health();
      if (options.json) printLine(JSON.stringify({ url: proxy.url, tenant: health.tenant, policyHash: health.policyHash, ledger: proxy.enforcer.writer.path }));
      else printLine(`svc proxy listening on ${proxy.url} (tenant ${health.tenant}, ledger ${proxy.enforcer.writer.path}, policy ${health.policyHash})`);
      await new Promise<void>((resolve) => {
        let stopping = false;
        const stop = () => {
          if (stopping) return;
          stopping = true;
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          void proxy.close().finally(resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
        void proxy.idle.then(() => {
          process.stderr.write(`svc proxy: no request for ${options.idleExit}, exiting\n`);
          stop();
        });
      });
    });
}

function durationOption(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseWindow(value);
  if (ms === undefined) throw new SvcError('usage', `${flag} ${value} is not a duration: write a whole number and one unit, such as 30s, 15m, 1h or 7d (at most 31d)`);
  return ms;
}
