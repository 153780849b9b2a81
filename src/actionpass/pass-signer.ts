import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SvcError } from '../errors.js';
import { issueActionPass, type ActionPassClaims } from './actionpass-token.js';
import { ED25519_SEED_LENGTH, type SigningKey } from './keys.js';

/**
 * Signs ActionPasses. Ed25519 signing is the largest single cost of a decision, so the proxy signs
 * on a worker thread: the main thread keeps deciding and sealing while the other core signs, and
 * the private key lives in that worker. Claims queued in the same tick go over as one message.
 */
export interface PassSigner {
  readonly keyName: string;
  sign(claims: ActionPassClaims): Promise<string>;
  /** Present when signing happens on the calling thread: the token at once, so a decision and its pass can be sealed in one commit. */
  signNow?(claims: ActionPassClaims): string;
  close(): Promise<void>;
}

/** Signs on the calling thread: for the SDK, tests, and where the compiled worker is not there. */
export function inThreadPassSigner(key: SigningKey): PassSigner {
  return {
    keyName: key.name,
    sign: async (claims) => issueActionPass(key, claims),
    signNow: (claims) => issueActionPass(key, claims),
    close: async () => undefined,
  };
}

interface Pending {
  claims: ActionPassClaims;
  resolve: (token: string) => void;
  reject: (error: Error) => void;
}

const WORKER_SCRIPT = new URL('./pass-signer-worker.js', import.meta.url);

/** A worker-thread signer, or the in-thread one when running from TypeScript sources. */
export async function workerPassSigner(key: SigningKey): Promise<PassSigner> {
  const file = fileURLToPath(WORKER_SCRIPT);
  if (!existsSync(file)) return inThreadPassSigner(key);
  // Imported here: a hook process signs in-thread and never pays for loading worker_threads.
  const { Worker } = await import('node:worker_threads');
  const d = key.privateKey.export({ format: 'jwk' }).d;
  const seed = typeof d === 'string' ? Buffer.from(d, 'base64url') : Buffer.alloc(0);
  if (seed.length !== ED25519_SEED_LENGTH) throw new SvcError('key_invalid', 'an Ed25519 private key seed is 32 bytes');
  const worker = new Worker(file, { workerData: { name: key.name, seed } });
  seed.fill(0);
  worker.unref();
  let queue: Pending[] = [];
  const inFlight = new Map<number, Pending[]>();
  let nextBatch = 0;
  let failure: Error | undefined;

  const failAll = (error: Error): void => {
    failure = error;
    for (const batch of inFlight.values()) for (const pending of batch) pending.reject(error);
    inFlight.clear();
  };
  worker.on('message', (message: { batch: number; tokens?: string[]; error?: string }) => {
    const batch = inFlight.get(message.batch);
    inFlight.delete(message.batch);
    batch?.forEach((pending, index) => {
      const token = message.tokens?.[index];
      if (token === undefined) pending.reject(new SvcError('signer_unavailable', message.error ?? 'the ActionPass signer returned no token'));
      else pending.resolve(token);
    });
  });
  worker.on('error', (error) => failAll(new SvcError('signer_unavailable', `the ActionPass signer failed: ${error.message}`)));
  worker.on('exit', () => failAll(new SvcError('signer_unavailable', 'the ActionPass signer stopped')));

  const flush = (): void => {
    const batch = queue;
    queue = [];
    nextBatch += 1;
    inFlight.set(nextBatch, batch);
    worker.postMessage({ batch: nextBatch, claims: batch.map((pending) => pending.claims) });
  };
  return {
    keyName: key.name,
    sign(claims) {
      if (failure) return Promise.reject(failure);
      return new Promise<string>((resolve, reject) => {
        // After this turn of the event loop: every request read in it goes over in one message.
        if (queue.length === 0) setImmediate(flush);
        queue.push({ claims, resolve, reject });
      });
    },
    async close() {
      await worker.terminate();
    },
  };
}
