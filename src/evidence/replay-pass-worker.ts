import { workerData } from 'node:worker_threads';
import { handOffReplayPass, type ProjectionPiece, type ReplayDigestOptions } from './replay-pass.js';
import { isSinkSlotMemory, SlotWriter } from './sink-slots.js';
import { answerFromWorker, postData, postProgress } from './worker.js';

const { path, options, slots } = workerData as { path: string; options: ReplayDigestOptions; slots: unknown };
// The projection bytes go to the main thread to be hashed (digestReplayPassInWorker) in slots of
// shared memory; only a slot's index and length are posted.
await answerFromWorker(async () => {
  if (!isSinkSlotMemory(slots)) throw new TypeError('the replay worker was given no shared slots for its projection bytes');
  const writer = new SlotWriter(slots);
  const pass = (file: string, bytes: Buffer): void => {
    // HashSink hands off only the buffers it took, so every piece lies in a slot.
    const slot = writer.slotOf(bytes);
    if (slot === undefined) throw new RangeError('a projection sink handed off bytes outside the shared slots');
    const piece: ProjectionPiece = { file, slot, length: bytes.length };
    postData(piece);
  };
  return handOffReplayPass(path, options, pass, () => writer.take(), postProgress());
});
