import type { Command } from 'commander';
import { SvcError } from '../../errors.js';
import { printLine } from '../output.js';

export function registerPlayground(program: Command): void {
  program
    .command('playground')
    .description('run the public playground: /playground and /api/playground, with throwaway keys and ledger')
    .option('--host <address>', 'address to bind; any address is allowed (it holds no credentials and executes nothing)', '127.0.0.1')
    .option('--port <port>', 'port to bind, 0 for any free port', '7332')
    .option('--subdomain-host <name>', 'requests for this Host (the playground subdomain) are redirected to /playground')
    .option('--trust-proxy', 'take the client address from X-Forwarded-For (only behind a reverse proxy you run)')
    .option('--json', 'print the listening address as one JSON line')
    .addHelpText('after', `
The playground runs every scenario and every typed command through svc's real decision path in a
temporary sandbox created at start (its own ActionPass and reviewer keys, its own ledger), and
deletes it on exit. It never touches .svc/ or ~/.config/svc, reaches no provider and executes
nothing. POST /api/playground bodies are capped at 4 KiB before parsing and each client is
rate-limited. See docs/playground.md.

Examples:
  svc playground                                   # http://127.0.0.1:7332/playground
  svc playground --host 0.0.0.0 --port 8080 --subdomain-host play.example.org`)
    .action(async (options: { host: string; port: string; subdomainHost?: string; trustProxy?: boolean; json?: boolean }) => {
      const port = Number(options.port);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new SvcError('usage', `--port ${options.port} is not a port number (0-65535)`);
      const { buildPlaygroundApp } = await import('../../playground/server.js');
      const playground = await buildPlaygroundApp({ ...(options.subdomainHost !== undefined && { subdomainHost: options.subdomainHost }), ...(options.trustProxy && { trustProxy: true }) });
      let address: string;
      try {
        address = await playground.app.listen({ host: options.host, port });
      } catch (error) {
        await playground.close();
        throw new SvcError('listen_failed', `cannot listen on ${options.host}:${port}: ${(error as Error).message}`);
      }
      const url = `${address}/playground`;
      if (options.json) printLine(JSON.stringify({ url, api: `${address}/api/playground`, sandbox: playground.sandbox.root }));
      else printLine(`svc playground listening on ${url} (sandbox ${playground.sandbox.root}; nothing is executed)`);
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          void playground.close().finally(resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
