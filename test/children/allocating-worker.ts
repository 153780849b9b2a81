import { workerData } from 'node:worker_threads';
import { answerFromWorker } from '../../src/evidence/worker.js';

/** A worker for the runOnWorker tests: holds `megabytes` of live objects, then answers how many it kept. */
const { megabytes } = workerData as { megabytes: number };
await answerFromWorker(async () => {
  const kept: number[][] = [];
  for (let index = 0; index < megabytes * 16; index += 1) kept.push(new Array<number>(8192).fill(index));
  return kept.length;
});
