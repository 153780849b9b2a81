import { getPriority } from 'node:os';
import { answerFromWorker, yieldToSlowerPass } from '../../src/evidence/worker.js';

/** A worker for the runOnWorker tests: yields to the slower pass, then answers with its own nice value. */
await answerFromWorker(async () => {
  yieldToSlowerPass();
  return getPriority(0);
});
