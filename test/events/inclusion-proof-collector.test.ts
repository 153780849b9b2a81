import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InclusionProofCollector } from '../../src/events/inclusion-proof-collector.js';
import { MerkleTree, hashLeaf, verifyInclusion } from '../../src/events/merkle.js';

function leafHashes(count: number): Buffer[] {
  return Array.from({ length: count }, (_, i) => hashLeaf(Buffer.from(`record ${i}`)));
}

/** Streams the leaves through a collector for `wanted`, and checks every proof against MerkleTree. */
function expectSameAsMerkleTree(leaves: readonly Buffer[], wanted: readonly number[]): void {
  const size = leaves.length;
  const collector = new InclusionProofCollector(size, wanted);
  for (const leaf of leaves) collector.append(leaf);
  const root = collector.root();
  const tree = MerkleTree.fromLeaves(leaves);
  expect(root.equals(tree.rootAt(size)), `root of size ${size}`).toBe(true);
  for (const index of wanted) {
    const proof = collector.inclusionProof(index);
    expect(proof, `leaf ${index} of ${size}`).toEqual(tree.inclusionProof(index, size));
    expect(verifyInclusion(index, size, leaves[index] as Buffer, proof, root), `leaf ${index} of ${size} verifies`).toBe(true);
  }
}

describe('InclusionProofCollector', () => {
  const all = leafHashes(700);

  it('gives the proof of MerkleTree.inclusionProof for every leaf of every size 1..70', () => {
    for (let size = 1; size <= 70; size += 1) {
      expectSameAsMerkleTree(all.slice(0, size), Array.from({ length: size }, (_, i) => i));
    }
  });

  it('gives the same proofs for any few wanted leaves, in any order, of sizes up to a few hundred', () => {
    const sizeAndWanted = fc
      .oneof(fc.integer({ min: 1, max: 700 }), fc.constantFrom(1, 2, 3, 127, 128, 129, 255, 256, 257, 300, 383, 511, 512, 513, 699, 700))
      .chain((size) => fc.tuple(fc.constant(size), fc.array(fc.nat({ max: size - 1 }), { minLength: 1, maxLength: 12 })));
    fc.assert(
      fc.property(sizeAndWanted, ([size, wanted]) => {
        expectSameAsMerkleTree(all.slice(0, size), wanted);
      }),
      { numRuns: 300 },
    );
  });

  it('always proves the first and last leaves, whose paths are all right edges or all left subtrees', () => {
    for (const size of [1, 2, 5, 64, 65, 333, 640, 700]) expectSameAsMerkleTree(all.slice(0, size), [0, size - 1]);
  });

  it('copies the leaf hashes it keeps: a caller reusing its buffer changes nothing', () => {
    const leaves = all.slice(0, 9);
    const collector = new InclusionProofCollector(9, [8]);
    const scratch = Buffer.alloc(32);
    for (const leaf of leaves) {
      leaf.copy(scratch);
      collector.append(scratch);
    }
    const root = collector.root();
    expect(root.equals(MerkleTree.fromLeaves(leaves).rootAt())).toBe(true);
    expect(verifyInclusion(8, 9, leaves[8] as Buffer, collector.inclusionProof(8), root)).toBe(true);
    // Nor does a caller changing a proof it was given.
    collector.inclusionProof(8).forEach((hash) => hash.fill(0));
    expect(verifyInclusion(8, 9, leaves[8] as Buffer, collector.inclusionProof(8), root)).toBe(true);
  });

  it('refuses misuse: bad sizes and indexes, too many or too few leaves, a leaf that is not 32 bytes, a leaf not asked for', () => {
    expect(() => new InclusionProofCollector(0, [])).toThrow(RangeError);
    expect(() => new InclusionProofCollector(1.5, [])).toThrow(RangeError);
    expect(() => new InclusionProofCollector(4, [4])).toThrow(RangeError);
    expect(() => new InclusionProofCollector(4, [-1])).toThrow(RangeError);
    const collector = new InclusionProofCollector(2, [0]);
    expect(() => collector.append(Buffer.alloc(31))).toThrow(TypeError);
    collector.append(all[0] as Buffer);
    expect(() => collector.root()).toThrow(RangeError);
    expect(() => collector.inclusionProof(0)).toThrow(RangeError);
    collector.append(all[1] as Buffer);
    expect(() => collector.append(all[2] as Buffer)).toThrow(RangeError);
    expect(collector.inclusionProof(0)).toEqual([all[1]]);
    expect(() => collector.inclusionProof(1)).toThrow(RangeError);
  });
});
