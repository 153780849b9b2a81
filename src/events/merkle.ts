import { createHash, hash } from 'node:crypto';

/**
 * The ledger's Merkle tree: RFC 6962 / RFC 9162 section 2.1 over SHA-256 (DESIGN.md section 4).
 * Hashes are raw 32-byte values. Builders throw on misuse; verifiers never throw, they return false.
 */

export const HASH_SIZE = 32;

// Private copy so that a caller mutating the exported Buffer cannot change what verifiers accept.
const EMPTY = createHash('sha256').digest();

/** MTH({}) = SHA-256 of the empty string. */
export const EMPTY_ROOT: Buffer = Buffer.from(EMPTY);

// One scratch buffer per primitive: one-shot crypto.hash over a reused buffer avoids a Hash object
// and a concat per node. Safe to share because hashing is synchronous.
const NODE_INPUT = Buffer.alloc(1 + 2 * HASH_SIZE);
NODE_INPUT[0] = 0x01;
const LEAF_INPUT = Buffer.alloc(4096);
LEAF_INPUT[0] = 0x00;
/**
 * `LEAF_INPUT.subarray(0, length)` for each length, made on first use: a view is an object to
 * allocate (and collect) every time, and the writer and the checker hash one leaf per record.
 */
const LEAF_INPUT_VIEWS: (Buffer | undefined)[] = new Array<Buffer | undefined>(LEAF_INPUT.length + 1);

function leafInput(length: number): Buffer {
  return (LEAF_INPUT_VIEWS[length] ??= LEAF_INPUT.subarray(0, length));
}

/**
 * SHA-256 of `input`. The digest comes back as a latin1 string ('binary', one char per byte)
 * rather than a Buffer: a digest Buffer gets its own ArrayBuffer, and that allocation costs about
 * as much as hashing 64 bytes. Buffer.from(string) instead slices Node's shared pool.
 */
function sha256(input: Uint8Array): Buffer {
  return Buffer.from(hash('sha256', input, 'binary'), 'latin1');
}

/** Leaf hash: SHA-256(0x00 ‖ data). */
export function hashLeaf(data: Uint8Array): Buffer {
  if (data.length < LEAF_INPUT.length) {
    LEAF_INPUT.set(data, 1);
    return sha256(LEAF_INPUT.subarray(0, 1 + data.length));
  }
  return createHash('sha256').update(LEAF_INPUT.subarray(0, 1)).update(data).digest();
}

/**
 * `hashLeaf` as 64 lowercase hex digits, the way the next record's prevHash names it. A checker
 * that compares it with that text and appends it to a CompactRange (`appendHex`) needs no Buffer
 * of the digest, and OpenSSL's hex output costs less than a Buffer plus a hex string made from it.
 */
export function hashLeafHex(data: Uint8Array): string {
  if (data.length < LEAF_INPUT.length) {
    LEAF_INPUT.set(data, 1);
    return hash('sha256', leafInput(1 + data.length), 'hex');
  }
  return createHash('sha256').update(LEAF_INPUT.subarray(0, 1)).update(data).digest('hex');
}

/**
 * `hashLeafHex` of a ledger line given with its final `\n`, which the leaf leaves out: the line is
 * copied whole after the 0x00 and the newline falls just past the hashed bytes, so the writer
 * needs no second view of each line.
 */
export function hashLineLeafHex(line: Uint8Array): string {
  if (line.length < LEAF_INPUT.length) {
    LEAF_INPUT.set(line, 1);
    return hash('sha256', leafInput(line.length), 'hex');
  }
  return hashLeafHex(line.subarray(0, line.length - 1));
}

/** Interior node hash: SHA-256(0x01 ‖ left ‖ right), both children 32 bytes. */
export function hashChildren(left: Uint8Array, right: Uint8Array): Buffer {
  if (left.length !== HASH_SIZE || right.length !== HASH_SIZE) {
    throw new TypeError('Merkle child hashes must be 32 bytes');
  }
  NODE_INPUT.set(left, 1);
  NODE_INPUT.set(right, 1 + HASH_SIZE);
  return sha256(NODE_INPUT);
}

/** Writes the parent of the adjacent nodes at `source[offset..offset+64)` to `target[at..]`, no Buffer allocated. */
function hashAdjacentInto(source: Buffer, offset: number, target: Buffer, at: number): void {
  source.copy(NODE_INPUT, 1, offset, offset + 2 * HASH_SIZE);
  target.write(hash('sha256', NODE_INPUT, 'binary'), at, HASH_SIZE, 'latin1');
}

/** Largest power of two strictly below n (n >= 2): the RFC's split point k. */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function isPowerOfTwo(n: number): boolean {
  return n > 0 && splitPoint(n + 1) === n;
}

/** Height of a perfect subtree of n leaves (n a power of two), without floating-point log. */
function heightOf(n: number): number {
  let height = 0;
  for (let width = 1; width < n; width *= 2) height += 1;
  return height;
}

function checkSize(value: number, max: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0 || value > max) {
    throw new RangeError(`${what} must be an integer in 0..${max}, got ${value}`);
  }
}

/**
 * Append-only tree state in O(log n) memory: the roots of the perfect subtrees that make up the
 * leaves so far, largest first (one per set bit of the size), as in transparency-dev compact ranges.
 */
export class CompactRange {
  // The stack lives in one buffer so that merging two entries is a copy, not an allocation.
  // 64 slots cover any safe-integer size (at most 53 set bits).
  #stack = Buffer.alloc(64 * HASH_SIZE);
  /** `#stack.subarray(i * HASH_SIZE, (i + 2) * HASH_SIZE)`, two adjacent entries, made once per i: merging copies from them without a view per merge. */
  #pairs: (Buffer | undefined)[] = [];
  #count = 0;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  append(leafHash: Uint8Array): void {
    if (leafHash.length !== HASH_SIZE) throw new TypeError('leaf hash must be 32 bytes');
    if (this.#size >= Number.MAX_SAFE_INTEGER) throw new RangeError('tree is full');
    this.#stack.set(leafHash, this.#count * HASH_SIZE);
    this.#merge();
  }

  /** `append` of a leaf hash given as 64 hex digits (`hashLeafHex`), decoded straight into the range. */
  appendHex(leafHashHex: string): void {
    if (this.#size >= Number.MAX_SAFE_INTEGER) throw new RangeError('tree is full');
    // Buffer.write stops at the first pair that is not hex: 32 bytes written means 64 hex digits.
    if (leafHashHex.length !== 2 * HASH_SIZE || this.#stack.write(leafHashHex, this.#count * HASH_SIZE, HASH_SIZE, 'hex') !== HASH_SIZE) throw new TypeError('leaf hash must be 64 hex digits');
    this.#merge();
  }

  /** Takes in the leaf just written above the stack's top. */
  #merge(): void {
    this.#count += 1;
    // Each trailing 1 bit of the old size marks a perfect subtree as large as the one just
    // completed on top of it: merge the two, like a binary carry.
    for (let s = this.#size; s % 2 === 1; s = (s - 1) / 2) {
      const index = this.#count - 2;
      const pair = (this.#pairs[index] ??= this.#stack.subarray(index * HASH_SIZE, (index + 2) * HASH_SIZE));
      NODE_INPUT.set(pair, 1);
      this.#stack.write(hash('sha256', NODE_INPUT, 'binary'), index * HASH_SIZE, HASH_SIZE, 'latin1');
      this.#count -= 1;
    }
    this.#size += 1;
  }

  /** MTH of all leaves appended so far; EMPTY_ROOT for none. */
  root(): Buffer {
    if (this.#count === 0) return Buffer.from(EMPTY);
    let offset = (this.#count - 1) * HASH_SIZE;
    let root: Buffer = Buffer.from(this.#stack.subarray(offset, offset + HASH_SIZE));
    // Fold right to left: the RFC tree's root hangs the smaller subtrees off the right.
    for (offset -= HASH_SIZE; offset >= 0; offset -= HASH_SIZE) {
      root = hashChildren(this.#stack.subarray(offset, offset + HASH_SIZE), root);
    }
    return root;
  }

  clone(): CompactRange {
    const copy = new CompactRange();
    this.#stack.copy(copy.#stack, 0, 0, this.#count * HASH_SIZE);
    copy.#count = this.#count;
    copy.#size = this.#size;
    return copy;
  }

  /** The range as data: its size and the roots of its perfect subtrees, left to right. */
  snapshot(): { size: number; subtrees: string[] } {
    const subtrees: string[] = [];
    for (let index = 0; index < this.#count; index += 1) subtrees.push(this.#stack.toString('base64', index * HASH_SIZE, (index + 1) * HASH_SIZE));
    return { size: this.#size, subtrees };
  }

  /** The range a snapshot describes; throws when the subtrees do not fit the size. */
  static fromSnapshot(snapshot: { size: number; subtrees: readonly string[] }): CompactRange {
    const { size, subtrees } = snapshot;
    // One perfect subtree per set bit of the size, largest first.
    const bits = Number.isSafeInteger(size) && size >= 0 ? size.toString(2).replace(/0/g, '').length : -1;
    if (bits !== subtrees.length) throw new RangeError(`a compact range of size ${size} has ${bits} subtrees, not ${subtrees.length}`);
    const range = new CompactRange();
    subtrees.forEach((subtree, index) => {
      const hash = Buffer.from(subtree, 'base64');
      if (hash.length !== HASH_SIZE) throw new RangeError('a subtree hash is 32 bytes');
      range.#stack.set(hash, index * HASH_SIZE);
    });
    range.#count = subtrees.length;
    range.#size = size;
    return range;
  }
}

/**
 * A tree over a fixed list of leaf hashes, all levels computed once, serving roots and RFC 9162
 * proofs for any prefix size. A level's unpaired last node is carried up unchanged, which yields
 * the RFC 6962 tree; every aligned perfect subtree within a prefix is then a stored node.
 */
export class MerkleTree {
  // levels[0] holds the leaves, levels[h] the nodes of height h, each as one n*32-byte buffer.
  readonly #levels: Buffer[];
  readonly #size: number;

  private constructor(leaves: Buffer) {
    this.#size = leaves.length / HASH_SIZE;
    const levels = [leaves];
    for (let level = leaves, width = this.#size; width > 1; ) {
      const next = Buffer.allocUnsafe(Math.ceil(width / 2) * HASH_SIZE);
      let i = 0;
      for (; i + 1 < width; i += 2) hashAdjacentInto(level, i * HASH_SIZE, next, (i / 2) * HASH_SIZE);
      if (i < width) level.copy(next, (i / 2) * HASH_SIZE, i * HASH_SIZE, (i + 1) * HASH_SIZE);
      levels.push(next);
      level = next;
      width = next.length / HASH_SIZE;
    }
    this.#levels = levels;
  }

  /** From leaf hashes, either as a list or as one buffer of n*32 bytes. The input is copied. */
  static fromLeaves(leaves: readonly Uint8Array[] | Uint8Array): MerkleTree {
    if (ArrayBuffer.isView(leaves)) {
      if (leaves.length % HASH_SIZE !== 0) throw new TypeError('leaf buffer length must be a multiple of 32');
      return new MerkleTree(Buffer.from(leaves));
    }
    const all = Buffer.allocUnsafe(leaves.length * HASH_SIZE);
    leaves.forEach((leaf, i) => {
      if (leaf.length !== HASH_SIZE) throw new TypeError(`leaf hash ${i} must be 32 bytes`);
      all.set(leaf, i * HASH_SIZE);
    });
    return new MerkleTree(all);
  }

  get size(): number {
    return this.#size;
  }

  /** MTH of the first `size` leaves. */
  rootAt(size: number = this.#size): Buffer {
    checkSize(size, this.#size, 'size');
    return size === 0 ? Buffer.from(EMPTY) : Buffer.from(this.#hash(0, size));
  }

  /** RFC 9162 PATH(index, D[0:size]), leaf to root. */
  inclusionProof(index: number, size: number = this.#size): Buffer[] {
    checkSize(size, this.#size, 'size');
    checkSize(index, size - 1, 'leaf index');
    const proof: Buffer[] = [];
    this.#path(index, 0, size, proof);
    return proof;
  }

  /** RFC 9162 PROOF(size1, D[0:size2]); empty when the sizes are equal. */
  consistencyProof(size1: number, size2: number = this.#size): Buffer[] {
    checkSize(size2, this.#size, 'size2');
    checkSize(size1, size2, 'size1');
    if (size1 === size2) return [];
    if (size1 === 0) throw new RangeError('there is no consistency proof from the empty tree');
    const proof: Buffer[] = [];
    this.#subproof(size1, 0, size2, true, proof);
    return proof;
  }

  // PATH(m, D[start:end]) with m absolute.
  #path(m: number, start: number, end: number, out: Buffer[]): void {
    if (end - start === 1) return;
    const k = splitPoint(end - start);
    if (m < start + k) {
      this.#path(m, start, start + k, out);
      out.push(Buffer.from(this.#hash(start + k, end)));
    } else {
      this.#path(m, start + k, end, out);
      out.push(Buffer.from(this.#hash(start, start + k)));
    }
  }

  // SUBPROOF(m, D[start:end], b) with m counted from start.
  #subproof(m: number, start: number, end: number, complete: boolean, out: Buffer[]): void {
    const n = end - start;
    if (m === n) {
      if (!complete) out.push(Buffer.from(this.#hash(start, end)));
      return;
    }
    const k = splitPoint(n);
    if (m <= k) {
      this.#subproof(m, start, start + k, complete, out);
      out.push(Buffer.from(this.#hash(start + k, end)));
    } else {
      this.#subproof(m - k, start + k, end, false, out);
      out.push(Buffer.from(this.#hash(start, start + k)));
    }
  }

  // MTH(D[start:end]), start < end. Aligned perfect subtrees are read from the stored levels, so
  // the ranges the RFC recursions ask for cost O(log n) hashes. May return a view into storage.
  #hash(start: number, end: number): Buffer {
    const n = end - start;
    if (isPowerOfTwo(n) && start % n === 0) {
      const level = this.#levels[heightOf(n)];
      if (level === undefined) throw new Error('unreachable: perfect subtree above the tree');
      const offset = (start / n) * HASH_SIZE;
      return level.subarray(offset, offset + HASH_SIZE);
    }
    const k = splitPoint(n);
    return hashChildren(this.#hash(start, start + k), this.#hash(start + k, end));
  }
}

// ---- Verification (RFC 9162 sections 2.1.3.2 and 2.1.4.2). Hostile input yields false. ----

function isIndex(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array;
}

function isHash(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array && value.length === HASH_SIZE;
}

function isProof(value: unknown): value is Uint8Array[] {
  return Array.isArray(value) && value.every(isHash);
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(a, b) === 0;
}

/** Whether `proof` shows the leaf `leafHash` at `leafIndex` in the tree of `treeSize` with `root`. */
export function verifyInclusion(
  leafIndex: number,
  treeSize: number,
  leafHash: Uint8Array,
  proof: Uint8Array[],
  root: Uint8Array,
): boolean {
  try {
    if (!isIndex(leafIndex) || !isIndex(treeSize) || leafIndex >= treeSize) return false;
    if (!isHash(leafHash) || !isHash(root) || !isProof(proof)) return false;
    let fn = leafIndex;
    let sn = treeSize - 1;
    let r: Uint8Array = leafHash;
    for (const p of proof) {
      if (sn === 0) return false;
      if (fn % 2 === 1 || fn === sn) {
        r = hashChildren(p, r);
        // Skip the levels where this node has no right sibling (the last node carried up).
        while (fn % 2 === 0 && fn !== 0) {
          fn /= 2;
          sn = Math.floor(sn / 2);
        }
      } else {
        r = hashChildren(r, p);
      }
      fn = Math.floor(fn / 2);
      sn = Math.floor(sn / 2);
    }
    return sn === 0 && bytesEqual(r, root);
  } catch {
    return false;
  }
}

/**
 * Whether `proof` shows that the tree of `size2` with `root2` extends the tree of `size1` with
 * `root1`. Edge cases follow the transparency-dev vectors: equal sizes need an empty proof and
 * equal roots (and a size-0 tree's only root is EMPTY_ROOT); a proof from size 0 is rejected.
 */
export function verifyConsistency(
  size1: number,
  size2: number,
  proof: Uint8Array[],
  root1: Uint8Array,
  root2: Uint8Array,
): boolean {
  try {
    if (!isIndex(size1) || !isIndex(size2) || size1 > size2) return false;
    if (!isProof(proof) || !isBytes(root1) || !isBytes(root2)) return false;
    if (size1 === size2) {
      // Nothing is recomputed: a tree is consistent with itself. Root lengths are not checked
      // here because the vectors accept equal 12-byte placeholder roots for size 1.
      if (proof.length !== 0 || !bytesEqual(root1, root2)) return false;
      return size1 !== 0 || bytesEqual(root1, EMPTY);
    }
    // RFC 9162 defines proofs only for 0 < size1 < size2, and they are never empty.
    if (size1 === 0 || proof.length === 0) return false;
    if (!isHash(root1) || !isHash(root2)) return false;

    // When size1 is a power of two its root is a node of the new tree and is left out of the proof.
    const path = isPowerOfTwo(size1) ? [root1, ...proof] : proof;
    let fn = size1 - 1;
    let sn = size2 - 1;
    while (fn % 2 === 1) {
      fn = (fn - 1) / 2;
      sn = Math.floor(sn / 2);
    }
    const first = path[0];
    if (first === undefined) return false;
    let fr: Uint8Array = first;
    let sr: Uint8Array = first;
    for (let i = 1; i < path.length; i++) {
      const c = path[i];
      if (c === undefined || sn === 0) return false;
      if (fn % 2 === 1 || fn === sn) {
        fr = hashChildren(c, fr);
        sr = hashChildren(c, sr);
        while (fn % 2 === 0 && fn !== 0) {
          fn /= 2;
          sn = Math.floor(sn / 2);
        }
      } else {
        sr = hashChildren(sr, c);
      }
      fn = Math.floor(fn / 2);
      sn = Math.floor(sn / 2);
    }
    return sn === 0 && bytesEqual(fr, root1) && bytesEqual(sr, root2);
  } catch {
    return false;
  }
}
