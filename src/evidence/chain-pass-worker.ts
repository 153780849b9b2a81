import { workerData } from 'node:worker_threads';
import { runChainPass, type ChainPassOptions } from './chain-pass.js';
import { answerFromWorker } from './worker.js';

const { path, options } = workerData as { path: string; options: ChainPassOptions };
await answerFromWorker(() => runChainPass(path, options));
