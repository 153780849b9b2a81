/**
 * Lowers the minimum size of the memory a WebAssembly module imports, in a copy of its bytes.
 *
 * web-tree-sitter's runtime (an emscripten build) declares that it needs at least 32 MiB of
 * memory, although parsing a command touches a few hundred KiB, and the memory grows on demand
 * anyway. A 32 MiB buffer is enough to make V8 run two extra young-generation collections and a
 * full one in a hook process (about 30 ms of a call), so the runtime is given a smaller start.
 *
 * Only the minimum's bytes change, rewritten in as many bytes as before (LEB128 allows padding;
 * a smaller number always fits), so no section moves or changes size. Anything this does not recognize is left alone: the caller
 * then runs the module as it is.
 */

/** Where a module's memory import states its minimum (a count of 64 KiB pages). */
interface MemoryMinimum {
  offset: number;
  length: number;
  pages: number;
}

const MAGIC_AND_VERSION = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
const IMPORT_SECTION = 2;
const IMPORT_FUNCTION = 0;
const IMPORT_TABLE = 1;
const IMPORT_MEMORY = 2;
const IMPORT_GLOBAL = 3;
const IMPORT_TAG = 4;
/** Limits flags: 0 is a minimum alone, 1 a minimum and a maximum; shared or 64-bit memories are left alone. */
const PLAIN_LIMITS = new Set([0x00, 0x01]);

/**
 * A copy of `bytes` whose memory import asks for `pages` at least, or undefined when the module
 * imports no memory, already asks for no more than `pages`, or is laid out in a way this does
 * not read.
 */
export function withMemoryMinimum(bytes: Uint8Array, pages: number): Uint8Array | undefined {
  const minimum = findMemoryMinimum(bytes);
  if (minimum === undefined || minimum.pages <= pages) return undefined;
  const copy = Uint8Array.from(bytes);
  let rest = pages;
  for (let index = 0; index < minimum.length; index += 1) {
    const last = index === minimum.length - 1;
    copy[minimum.offset + index] = (rest & 0x7f) | (last ? 0 : 0x80);
    rest >>>= 7;
  }
  return copy;
}

/** The memory import's minimum, or undefined (see withMemoryMinimum). */
export function findMemoryMinimum(bytes: Uint8Array): MemoryMinimum | undefined {
  if (bytes.length < MAGIC_AND_VERSION.length || MAGIC_AND_VERSION.some((byte, index) => bytes[index] !== byte)) return undefined;
  const reader = new ByteReader(bytes, MAGIC_AND_VERSION.length);
  try {
    while (!reader.atEnd()) {
      const id = reader.byte();
      const size = reader.u32();
      const end = reader.offset + size;
      if (id === IMPORT_SECTION) return memoryMinimumIn(reader, end);
      reader.skipTo(end);
    }
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
  return undefined;
}

function memoryMinimumIn(reader: ByteReader, end: number): MemoryMinimum | undefined {
  for (let count = reader.u32(); count > 0; count -= 1) {
    reader.skipName(); // module
    reader.skipName(); // field
    const kind = reader.byte();
    if (kind === IMPORT_FUNCTION) reader.u32();
    else if (kind === IMPORT_TABLE) {
      reader.byte();
      skipLimits(reader);
    } else if (kind === IMPORT_MEMORY) {
      if (!PLAIN_LIMITS.has(reader.byte())) return undefined;
      const offset = reader.offset;
      const pages = reader.u32();
      return reader.offset <= end ? { offset, length: reader.offset - offset, pages } : undefined;
    } else if (kind === IMPORT_GLOBAL) reader.skipTo(reader.offset + 2);
    else if (kind === IMPORT_TAG) {
      reader.byte();
      reader.u32();
    } else return undefined;
  }
  return undefined;
}

function skipLimits(reader: ByteReader): void {
  const flags = reader.byte();
  if (!PLAIN_LIMITS.has(flags)) throw new RangeError('limits this reader does not know');
  reader.u32();
  if (flags === 0x01) reader.u32();
}

/** Reads a module's bytes; anything past the end, or an overlong number, is a RangeError. */
class ByteReader {
  constructor(
    private readonly bytes: Uint8Array,
    public offset: number,
  ) {}

  atEnd(): boolean {
    return this.offset >= this.bytes.length;
  }

  byte(): number {
    const value = this.bytes[this.offset];
    if (value === undefined) throw new RangeError('past the end of the module');
    this.offset += 1;
    return value;
  }

  /** An unsigned LEB128 number of at most 32 bits (five bytes). */
  u32(): number {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const byte = this.byte();
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) {
        if (value > 0xffff_ffff) throw new RangeError('a number wider than 32 bits');
        return value;
      }
    }
    throw new RangeError('an overlong number');
  }

  /** A name: its length in bytes, then the bytes. */
  skipName(): void {
    const length = this.u32();
    this.skipTo(this.offset + length);
  }

  skipTo(offset: number): void {
    if (offset > this.bytes.length) throw new RangeError('past the end of the module');
    this.offset = offset;
  }
}
