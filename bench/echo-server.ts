import Fastify from 'fastify';

/**
 * The baseline of the proxy benchmark: a bare fastify 5 JSON echo, logger off, in a process of
 * its own (so it never shares an event loop with the load generator). `POST /echo` answers the
 * parsed JSON body, serialized again: the floor of "read JSON over HTTP, answer JSON" on this
 * machine with this node and this fastify.
 *
 *   node dist/bench/echo-server.js     prints {"url":"http://127.0.0.1:<port>"} once listening; SIGTERM stops it
 */
async function main(): Promise<void> {
  const app = Fastify({ logger: false });
  app.post('/echo', async (request) => request.body);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('echo server: no TCP address');
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}` })}\n`);
  const stop = (): void => {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    void app.close().finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`echo server: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(2);
});
