import { workerData } from 'node:worker_threads';
import { digestReplayPass, type ReplayDigestOptions } from './replay-pass.js';
import { answerFromWorker, postProgress } from './worker.js';

const { path, options } = workerData as { path: string; options: ReplayDigestOptions };
await answerFromWorker(() => digestReplayPass(path, options, postProgress()));
