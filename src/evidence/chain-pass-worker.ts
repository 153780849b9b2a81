import { workerData } from 'node:worker_threads';
import { runChainPass, type ChainPassOptions } from './chain-pass.js';
import { answerFromWorker, yieldToSlowerPass } from './worker.js';

const { path, options } = workerData as { path: string; options: ChainPassOptions };
if (options.background) yieldToSlowerPass();
await answerFromWorker(() => runChainPass(path, options));
