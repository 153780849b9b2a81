import { SINK_BUFFER_BYTES } from './hash-sink.js';

/**
 * Buffers in memory shared between the replay worker, which fills them with projection bytes,
 * and the main thread, which hashes them: the replay thread is the slower of verification's two
 * workers, and the hashing was about a tenth of its work. Shared memory rather than transferred
 * buffers: a transferred ArrayBuffer is a new object on the receiving thread each time, and the
 * main thread, which allocates little else, let its young generation grow on them (peak RSS rose
 * by 20-35 MB on the 100k-record bundle).
 *
 * Each slot is FREE or TAKEN. The worker takes a free one for a sink to fill, and posts its index
 * once full; the main thread hashes it and frees it. With every slot taken the worker waits
 * (Atomics.wait) until one is freed: the memory is bounded, and the worker never overwrites
 * bytes not yet hashed. A sink holds one slot at a time, and there are more slots than sinks.
 */
export interface SinkSlotMemory {
  data: SharedArrayBuffer;
  /** SLOT_COUNT slot states, then a count of slots freed, which the worker waits on. */
  states: SharedArrayBuffer;
}

export const SLOT_COUNT = 16;
const FREE = 0;
const TAKEN = 1;
const FREED_COUNT = SLOT_COUNT;

export function sinkSlotMemory(): SinkSlotMemory {
  return { data: new SharedArrayBuffer(SLOT_COUNT * SINK_BUFFER_BYTES), states: new SharedArrayBuffer((SLOT_COUNT + 1) * Int32Array.BYTES_PER_ELEMENT) };
}

/** Whether `value` (which crossed a thread boundary as unknown) is a SinkSlotMemory. */
export function isSinkSlotMemory(value: unknown): value is SinkSlotMemory {
  if (typeof value !== 'object' || value === null) return false;
  const { data, states } = value as Partial<SinkSlotMemory>;
  return data instanceof SharedArrayBuffer && data.byteLength === SLOT_COUNT * SINK_BUFFER_BYTES && states instanceof SharedArrayBuffer && states.byteLength === (SLOT_COUNT + 1) * Int32Array.BYTES_PER_ELEMENT;
}

/** The worker's side: takes free slots as buffers, and tells which slot a buffer is. */
export class SlotWriter {
  private readonly states: Int32Array;

  constructor(private readonly memory: SinkSlotMemory) {
    this.states = new Int32Array(memory.states);
  }

  /** A free slot, taken, as a buffer of SINK_BUFFER_BYTES; waits until the main thread frees one if none is. */
  take(): Buffer {
    for (;;) {
      const freed = Atomics.load(this.states, FREED_COUNT);
      for (let slot = 0; slot < SLOT_COUNT; slot += 1) {
        if (Atomics.compareExchange(this.states, slot, FREE, TAKEN) === FREE) return Buffer.from(this.memory.data, slot * SINK_BUFFER_BYTES, SINK_BUFFER_BYTES);
      }
      // Woken by a slot freed after `freed` was read; the timeout only bounds a missed wake-up.
      Atomics.wait(this.states, FREED_COUNT, freed, 1000);
    }
  }

  /** The slot `bytes` lie in (from its start), or undefined when they are not a slot's. */
  slotOf(bytes: Uint8Array): number | undefined {
    if (bytes.buffer !== this.memory.data || bytes.byteOffset % SINK_BUFFER_BYTES !== 0) return undefined;
    return bytes.byteOffset / SINK_BUFFER_BYTES;
  }
}

/** The main thread's side: reads a slot the worker filled, then frees it. */
export class SlotReader {
  private readonly states: Int32Array;

  constructor(private readonly memory: SinkSlotMemory) {
    this.states = new Int32Array(memory.states);
  }

  /** The first `length` bytes of `slot`; undefined for no slot or length that can be. */
  bytes(slot: number, length: number): Uint8Array | undefined {
    if (!Number.isInteger(slot) || slot < 0 || slot >= SLOT_COUNT || !Number.isInteger(length) || length < 0 || length > SINK_BUFFER_BYTES) return undefined;
    return new Uint8Array(this.memory.data, slot * SINK_BUFFER_BYTES, length);
  }

  free(slot: number): void {
    if (!Number.isInteger(slot) || slot < 0 || slot >= SLOT_COUNT) return;
    Atomics.store(this.states, slot, FREE);
    Atomics.add(this.states, FREED_COUNT, 1);
    Atomics.notify(this.states, FREED_COUNT);
  }
}
