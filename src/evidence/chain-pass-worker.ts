import { parentPort, workerData } from 'node:worker_threads';
import { runChainPass, type ChainPassOptions } from './chain-pass.js';

/** Worker entry: runs one chain pass and posts its summary (or the error) back. */
const { path, options } = workerData as { path: string; options: ChainPassOptions };
try {
  parentPort?.postMessage({ summary: await runChainPass(path, options) });
} catch (error) {
  parentPort?.postMessage({ error: { code: (error as NodeJS.ErrnoException).code, message: (error as Error).message } });
}
