import { parentPort, workerData } from 'node:worker_threads';
import type { ActionPassClaims } from './actionpass-token.js';
import { issueActionPass } from './actionpass-token.js';
import { signingKeyFromSeed } from './keys.js';

/** The signing side of pass-signer.ts: holds the ActionPass key, answers batches of claims. */
const { name, seed } = workerData as { name: string; seed: Uint8Array };
const key = signingKeyFromSeed(name, seed);

parentPort?.on('message', (message: { batch: number; claims: ActionPassClaims[] }) => {
  try {
    parentPort?.postMessage({ batch: message.batch, tokens: message.claims.map((claims) => issueActionPass(key, claims)) });
  } catch (error) {
    parentPort?.postMessage({ batch: message.batch, error: (error as Error).message });
  }
});
