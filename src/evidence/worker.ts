import { existsSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parentPort, Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * Runs `script` (a compiled module beside the caller) on a worker thread with a capped heap and
 * resolves with the one result it posts. Where the compiled script is not there (running from
 * TypeScript sources, as the unit tests do) it runs `inThread` instead: same result, one core.
 * The cap keeps the usual peak low; a ledger that needs more memory is not refused for it, it
 * runs `inThread` too.
 *
 * `onData` receives what the worker posts with `postData`, in order, and all of it before the
 * result. After a fallback to `inThread` the caller must disregard what it received: the worker
 * that sent it did not finish.
 */
export function runOnWorker<T>(script: URL, workerData: unknown, resourceLimits: ResourceLimits, inThread: () => Promise<T>, onProgress?: Progress, onData?: (data: unknown) => void): Promise<T> {
  const file = fileURLToPath(script);
  if (!existsSync(file)) return inThread();
  return new Promise((resolve, reject) => {
    let fallingBack = false;
    const worker = new Worker(file, { workerData, resourceLimits });
    worker.on('message', (message: { progress?: [number, number]; data?: unknown; result?: T; error?: { code?: string; message: string } }) => {
      if (message.progress) onProgress?.(...message.progress);
      else if ('data' in message) onData?.(message.data);
      else if (message.error) reject(Object.assign(new Error(message.error.message), { code: message.error.code }));
      else resolve(message.result as T);
    });
    worker.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ERR_WORKER_OUT_OF_MEMORY') return reject(error);
      fallingBack = true;
      inThread().then(resolve, reject);
    });
    worker.once('exit', (code) => {
      if (code !== 0 && !fallingBack) reject(new Error(`worker ${file} exited with code ${code}`));
    });
  });
}

export type Progress = (done: number, total: number) => void;

/** The worker side: progress to post back, at most every 100 ms. */
export function postProgress(): Progress {
  let last = 0;
  return (done, total) => {
    const now = Date.now();
    if (now - last < 100 && done < total) return;
    last = now;
    parentPort?.postMessage({ progress: [done, total] });
  };
}

/** The worker side: post `data` to the `onData` of `runOnWorker`. */
export function postData(data: unknown): void {
  parentPort?.postMessage({ data });
}

/** The worker side: run `task` and post its result, or its error, back. */
export async function answerFromWorker<T>(task: () => Promise<T>): Promise<void> {
  try {
    parentPort?.postMessage({ result: await task() });
  } catch (error) {
    parentPort?.postMessage({ error: { code: (error as NodeJS.ErrnoException).code, message: (error as Error).message } });
  }
}

/** How much lower than the process the faster pass runs: enough for the scheduler to favour the slower one, not to starve it. */
const BACKGROUND_NICE_STEP = 5;

/**
 * The worker side: lowers this thread's scheduling priority, for the faster of verification's two
 * passes. They run beside the main thread and the collector's helpers on as few as two cores, and
 * the wall time is the slower pass's: when both want a core, the scheduler now gives it to that
 * one. On a 1M-record bundle with two cores this took about 0.5 s off 12 (the replay pass is the
 * slower there); the work done is the same. Linux only, where the nice value is per thread:
 * elsewhere setPriority(0) would lower the whole process.
 */
export function yieldToSlowerPass(): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(0, Math.min(19, getPriority(0) + BACKGROUND_NICE_STEP));
  } catch {
    // A sandbox may refuse it; the verdict does not depend on it, only the time.
  }
}
