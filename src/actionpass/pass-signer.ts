import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SvcError } from '../errors.js';
import { issueActionPassJson } from './actionpass-token.js';
import { ED25519_SEED_LENGTH, type SigningKey } from './keys.js';

/**
 * Signs ActionPasses. Ed25519 signing is the largest single cost of a decision, so the proxy signs
 * on a worker thread: the main thread keeps deciding and sealing while the other core signs, and
 * the private key lives in that worker. One batch is in flight at a time: claims queued while the
 * worker signs go over together once it answers, so under load a message carries many passes
 * (each message costs the main thread about as much as signing one pass would save it).
 *
 * Claims come as their JCS text (`canonicalJson(claims)`), which the caller needs anyway for the
 * `actionpass.issued` record: a string crosses to the worker for a copy, where an object would be
 * cloned field by field, and the worker signs it without serializing again.
 */
export interface PassSigner {
  readonly keyName: string;
  sign(claimsJson: string): Promise<string>;
  /** Present when signing happens on the calling thread: the token at once, so a decision and its pass can be sealed in one commit. */
  signNow?(claimsJson: string): string;
  close(): Promise<void>;
}

/** Signs on the calling thread: for the SDK, tests, and where the compiled worker is not there. */
export function inThreadPassSigner(key: SigningKey): PassSigner {
  return {
    keyName: key.name,
    sign: async (claimsJson) => issueActionPassJson(key, claimsJson),
    signNow: (claimsJson) => issueActionPassJson(key, claimsJson),
    close: async () => undefined,
  };
}

interface Pending {
  claimsJson: string;
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
  /** Claims waiting for the next message. */
  let queue: Pending[] = [];
  /** The batch the worker is signing, if any. */
  let inFlight: Pending[] | undefined;
  let flushScheduled = false;
  let failure: Error | undefined;

  const failAll = (error: Error): void => {
    failure = error;
    for (const pending of [...(inFlight ?? []), ...queue]) pending.reject(error);
    inFlight = undefined;
    queue = [];
  };
  const flush = (): void => {
    flushScheduled = false;
    if (inFlight !== undefined || queue.length === 0 || failure) return;
    inFlight = queue;
    queue = [];
    worker.postMessage({ claims: inFlight.map((pending) => pending.claimsJson) });
  };
  worker.on('message', (message: { tokens: (string | null)[]; errors?: Record<number, string> }) => {
    const batch = inFlight ?? [];
    inFlight = undefined;
    batch.forEach((pending, index) => {
      const token = message.tokens[index];
      if (typeof token === 'string') pending.resolve(token);
      else pending.reject(new SvcError('signer_unavailable', message.errors?.[index] ?? 'the ActionPass signer returned no token'));
    });
    // What queued up meanwhile goes at once: it has waited for a whole batch already.
    flush();
  });
  worker.on('error', (error) => failAll(new SvcError('signer_unavailable', `the ActionPass signer failed: ${error.message}`)));
  worker.on('exit', () => failAll(new SvcError('signer_unavailable', 'the ActionPass signer stopped')));

  return {
    keyName: key.name,
    sign(claimsJson) {
      if (failure) return Promise.reject(failure);
      return new Promise<string>((resolve, reject) => {
        queue.push({ claimsJson, resolve, reject });
        // After this turn of the event loop, so every request read in it goes in one message;
        // while a batch is in flight, its answer sends the next.
        if (inFlight === undefined && !flushScheduled) {
          flushScheduled = true;
          setImmediate(flush);
        }
      });
    },
    async close() {
      await worker.terminate();
    },
  };
}
