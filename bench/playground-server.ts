/**
 * The playground server for bench/playground.ts: `buildPlaygroundApp` with the per-client window
 * lifted (one load generator is one client), on a free loopback port, printing `{"url": ...}`.
 */
import { buildPlaygroundApp } from '../src/playground/server.js';

const playground = await buildPlaygroundApp({ rateLimit: false });
const url = await playground.app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ url, sandbox: playground.sandbox.root })}\n`);
const stop = () => {
  process.off('SIGTERM', stop);
  process.off('SIGINT', stop);
  void playground.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
