import { parentPort, workerData } from 'node:worker_threads';
import { issueActionPassJson } from './actionpass-token.js';
import { signingKeyFromSeed } from './keys.js';

/** The signing side of pass-signer.ts: holds the ActionPass key, answers batches of claims. */
const { name, seed } = workerData as { name: string; seed: Uint8Array };
const key = signingKeyFromSeed(name, seed);

/**
 * One batch at a time (pass-signer.ts sends the next once this one is answered); `claims`: each
 * pass's claims as JCS text. Each pass succeeds or fails on its own: a token, or null and why.
 */
parentPort?.on('message', (message: { claims: string[] }) => {
  const tokens: (string | null)[] = [];
  let errors: Record<number, string> | undefined;
  message.claims.forEach((claimsJson, index) => {
    try {
      tokens.push(issueActionPassJson(key, claimsJson));
    } catch (error) {
      tokens.push(null);
      (errors ??= {})[index] = (error as Error).message;
    }
  });
  parentPort?.postMessage({ tokens, errors });
});
