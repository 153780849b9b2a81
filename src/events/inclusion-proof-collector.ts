import { hashChildren, HASH_SIZE } from './merkle.js';

/**
 * RFC 9162 inclusion proofs for a few chosen leaves of a tree of known size, built while the
 * leaf hashes stream past once, in seq order.
 *
 * Why: `svc prove-equivalence` proves a handful of records of a ledger that may hold millions.
 * Keeping every leaf hash (MerkleTree) costs memory that grows with the ledger; this keeps only
 * the nodes the wanted proofs need plus an O(log n) frontier, so memory grows with the output:
 * (wanted leaves) x log2(size) hashes.
 *
 * How: every hash in PATH(m, D[0:n]) is the hash of a contiguous leaf range, and that range is
 * either a perfect subtree [i*2^h, (i+1)*2^h) or the incomplete right edge [a, n). The frontier
 * (the perfect subtrees appended so far, as in CompactRange) creates each perfect subtree exactly
 * once, so the wanted ones are saved as they appear. The right edges are folded at the end from
 * the final frontier, whose subtrees are exactly the pieces [a, n) is made of.
 */
export class InclusionProofCollector {
  readonly #treeSize: number;
  readonly #wantedLeaves = new Set<number>();
  // Kept hashes are latin1 strings (one char per byte): about 48 bytes each, where a Buffer of its
  // own costs several times that, and a pooled Buffer slice would keep its whole 8 KiB pool block alive.
  /** Wanted perfect subtrees: #subtrees[height] maps subtree index to its hash once created. */
  readonly #subtrees: Map<number, string | undefined>[] = [];
  /** Wanted right edges [start, treeSize), by start, hashed once the last leaf is appended. */
  readonly #rightEdges = new Map<number, string | undefined>();
  /** Perfect subtrees not yet merged into a larger one, left to right, strictly decreasing height. */
  readonly #frontier: Subtree[] = [];
  #size = 0;
  #root: Buffer | undefined;

  /** `treeSize` >= 1 leaves will be appended; proofs are made for `leafIndexes` (each < treeSize). */
  constructor(treeSize: number, leafIndexes: Iterable<number>) {
    if (!Number.isSafeInteger(treeSize) || treeSize < 1) throw new RangeError(`tree size must be a positive integer, got ${treeSize}`);
    this.#treeSize = treeSize;
    for (const index of leafIndexes) {
      if (!Number.isSafeInteger(index) || index < 0 || index >= treeSize) throw new RangeError(`leaf index must be an integer in 0..${treeSize - 1}, got ${index}`);
      if (this.#wantedLeaves.has(index)) continue;
      this.#wantedLeaves.add(index);
      // Only the set of wanted ranges is kept; a path is recomputed when its proof is asked for.
      for (const sibling of siblingRanges(index, treeSize)) {
        if (sibling.kind === 'subtree') this.#wantedAt(sibling.height).set(sibling.index, undefined);
        else this.#rightEdges.set(sibling.start, undefined);
      }
    }
  }

  /** Leaves appended so far. */
  get size(): number {
    return this.#size;
  }

  append(leafHash: Uint8Array): void {
    if (leafHash.length !== HASH_SIZE) throw new TypeError('leaf hash must be 32 bytes');
    if (this.#size >= this.#treeSize) throw new RangeError(`the tree has ${this.#treeSize} leaves; no more can be appended`);
    let node: Subtree = { height: 0, index: this.#size, hash: Buffer.from(leafHash) };
    this.#size += 1;
    this.#created(node);
    // Like a binary carry: two neighbours of the same height become their parent.
    for (let left = this.#frontier.at(-1); left?.height === node.height; left = this.#frontier.at(-1)) {
      this.#frontier.pop();
      node = { height: node.height + 1, index: left.index / 2, hash: hashChildren(left.hash, node.hash) };
      this.#created(node);
    }
    this.#frontier.push(node);
    if (this.#size === this.#treeSize) this.#foldRightEdges();
  }

  /** MTH of the whole tree, once all `treeSize` leaves are appended. */
  root(): Buffer {
    return Buffer.from(this.#complete());
  }

  /** RFC 9162 PATH(index, D[0:treeSize]), leaf to root, for a wanted leaf once all leaves are appended. */
  inclusionProof(index: number): Buffer[] {
    this.#complete();
    if (!this.#wantedLeaves.has(index)) throw new RangeError(`leaf ${index} was not asked for when the collector was made`);
    return siblingRanges(index, this.#treeSize).map((sibling) => Buffer.from(this.#hashOf(sibling), 'latin1'));
  }

  #complete(): Buffer {
    if (this.#root === undefined) throw new RangeError(`${this.#size} of ${this.#treeSize} leaves were appended`);
    return this.#root;
  }

  // The final frontier folded right to left: after subtree k the fold is MTH([start of k, treeSize)),
  // the hash of that right edge; after the first subtree it is the root.
  #foldRightEdges(): void {
    let fold: Buffer | undefined;
    for (let k = this.#frontier.length - 1; k >= 0; k -= 1) {
      const subtree = this.#frontier[k] as Subtree;
      fold = fold === undefined ? subtree.hash : hashChildren(subtree.hash, fold);
      const start = subtree.index * 2 ** subtree.height;
      if (this.#rightEdges.has(start)) this.#rightEdges.set(start, fold.toString('latin1'));
    }
    this.#root = fold;
  }

  #wantedAt(height: number): Map<number, string | undefined> {
    let wanted = this.#subtrees[height];
    if (wanted === undefined) {
      wanted = new Map();
      this.#subtrees[height] = wanted;
    }
    return wanted;
  }

  #created(node: Subtree): void {
    const wanted = this.#subtrees[node.height];
    if (wanted?.has(node.index)) wanted.set(node.index, node.hash.toString('latin1'));
  }

  #hashOf(sibling: Sibling): string {
    const hash = sibling.kind === 'subtree' ? this.#subtrees[sibling.height]?.get(sibling.index) : this.#rightEdges.get(sibling.start);
    if (hash === undefined) throw new Error('unreachable: a sibling range was never built');
    return hash;
  }
}

/** A perfect subtree: leaves [index * 2^height, (index + 1) * 2^height). */
interface Subtree {
  height: number;
  index: number;
  hash: Buffer;
}

type Sibling = { kind: 'subtree'; height: number; index: number } | { kind: 'rightEdge'; start: number };

/**
 * The ranges whose hashes make RFC 9162 PATH(m, D[0:n]) (section 2.1.3.1), leaf to root. The
 * recursion splits [start, end) at the largest power of two k < end - start; it only ever visits
 * perfect subtrees and right edges, so each sibling is one of the two.
 */
function siblingRanges(m: number, n: number): Sibling[] {
  const topDown: Sibling[] = [];
  let start = 0;
  let end = n;
  while (end - start > 1) {
    const k = largestPowerOfTwoBelow(end - start);
    const middle = start + k;
    if (m < middle) {
      topDown.push(rangeOf(middle, end, n));
      end = middle;
    } else {
      topDown.push(rangeOf(start, middle, n));
      start = middle;
    }
  }
  return topDown.reverse();
}

/** The range [start, end) of a PATH recursion as a sibling: a perfect subtree if it is one, else a right edge. */
function rangeOf(start: number, end: number, n: number): Sibling {
  const width = end - start;
  const height = perfectHeight(width);
  if (height !== undefined && start % width === 0) return { kind: 'subtree', height, index: start / width };
  if (end !== n) throw new Error(`unreachable: [${start}, ${end}) is neither a perfect subtree nor a right edge of ${n}`);
  return { kind: 'rightEdge', start };
}

/** h when width is 2^h, else undefined (no floating-point log). */
function perfectHeight(width: number): number | undefined {
  let height = 0;
  let power = 1;
  for (; power < width; power *= 2) height += 1;
  return power === width ? height : undefined;
}

/** Largest power of two strictly below n (n >= 2): the RFC's split point k. */
function largestPowerOfTwoBelow(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}
