import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CompactRange,
  EMPTY_ROOT,
  MerkleTree,
  hashChildren,
  hashLeaf,
  hashLeafHex,
  verifyConsistency,
  verifyInclusion,
} from '../../src/events/merkle.js';

const VECTORS = fileURLToPath(new URL('../../testdata/vectors/rfc6962-merkle/testdata/', import.meta.url));

interface InclusionCase {
  leafIdx: number;
  treeSize: number;
  root: string;
  leafHash: string;
  proof: string[] | null;
  desc: string;
  wantErr: boolean;
}

interface ConsistencyCase {
  size1: number;
  size2: number;
  root1: string;
  root2: string;
  proof: string[] | null;
  desc: string;
  wantErr: boolean;
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)]))
    .filter((file) => file.endsWith('.json'))
    .sort();
}

function load<T>(kind: 'inclusion' | 'consistency'): { name: string; vector: T }[] {
  return walk(join(VECTORS, kind)).map((file) => ({
    name: relative(VECTORS, file),
    vector: JSON.parse(readFileSync(file, 'utf8')) as T,
  }));
}

/** Strict base64: the vectors' garbage cases are real byte strings, never decoding accidents. */
function b64(text: string): Buffer {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.toString('base64') !== text) throw new Error(`not canonical base64: ${text}`);
  return bytes;
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** MTH straight from the RFC 6962 definition, independent of the code under test. */
function referenceRoot(leaves: readonly Uint8Array[]): Buffer {
  if (leaves.length === 0) return Buffer.from(EMPTY_ROOT);
  if (leaves.length === 1) return Buffer.from(leaves[0]!);
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return hashChildren(referenceRoot(leaves.slice(0, k)), referenceRoot(leaves.slice(k)));
}

function leafHashes(count: number): Buffer[] {
  return Array.from({ length: count }, (_, i) => hashLeaf(Buffer.from(`leaf ${i}`)));
}

function flipByte(proof: Buffer[], element: number, byte: number): Buffer[] {
  return proof.map((hash, i) => {
    const copy = Buffer.from(hash);
    if (i === element) copy[byte] = copy[byte]! ^ 0x01;
    return copy;
  });
}

describe('transparency-dev/merkle inclusion vectors', () => {
  const cases = load<InclusionCase>('inclusion');
  it('finds the vector files', () => {
    expect(cases.length).toBe(98);
  });
  for (const { name, vector: v } of cases) {
    it(`${name}: ${v.desc} is ${v.wantErr ? 'rejected' : 'verified'}`, () => {
      const ok = verifyInclusion(v.leafIdx, v.treeSize, b64(v.leafHash), (v.proof ?? []).map(b64), b64(v.root));
      expect(ok).toBe(!v.wantErr);
    });
  }
});

describe('transparency-dev/merkle consistency vectors', () => {
  const cases = load<ConsistencyCase>('consistency');
  it('finds the vector files', () => {
    expect(cases.length).toBe(98);
  });
  for (const { name, vector: v } of cases) {
    it(`${name}: ${v.desc} is ${v.wantErr ? 'rejected' : 'verified'}`, () => {
      const ok = verifyConsistency(v.size1, v.size2, (v.proof ?? []).map(b64), b64(v.root1), b64(v.root2));
      expect(ok).toBe(!v.wantErr);
    });
  }
});

describe('RFC 6962 reference tree', () => {
  const inputs = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'];
  const leaves = inputs.map((input) => hashLeaf(Buffer.from(input, 'hex')));

  // Published roots by size, read from the vectors' verified cases rather than typed in.
  function publishedRoots(): Map<number, string> {
    const roots = new Map<number, string>();
    const add = (size: number, root: string): void => {
      const bytes = b64(root);
      if (bytes.length === 32 && !roots.has(size)) roots.set(size, hex(bytes));
    };
    // Only the numbered directories use the reference tree; additional/ and single-entry/ do not.
    const reference = (name: string): boolean => /^\w+[/\\]\d+[/\\]/.test(name);
    for (const { name, vector: v } of load<InclusionCase>('inclusion')) {
      if (!v.wantErr && reference(name)) add(v.treeSize, v.root);
    }
    for (const { name, vector: v } of load<ConsistencyCase>('consistency')) {
      if (!v.wantErr && reference(name)) {
        add(v.size1, v.root1);
        add(v.size2, v.root2);
      }
    }
    // No vector states the size-4 root as a root, but inclusion/2 (leaf 5 of 8) carries MTH(D[0:4])
    // as its last proof element.
    const leaf5 = load<InclusionCase>('inclusion').find((c) => c.name === join('inclusion', '2', 'happy-path.json'));
    const last = leaf5?.vector.proof?.[2];
    if (leaf5?.vector.leafIdx === 5 && leaf5.vector.treeSize === 8 && last !== undefined) roots.set(4, hex(b64(last)));
    return roots;
  }

  it('has the known 8-leaf root', () => {
    expect(hex(MerkleTree.fromLeaves(leaves).rootAt(8))).toBe(
      '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
    );
  });

  it('matches the published roots of every prefix', () => {
    const roots = publishedRoots();
    expect([...roots.keys()].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(roots.get(4)).toBe('d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7');
    const tree = MerkleTree.fromLeaves(leaves);
    const range = new CompactRange();
    for (let size = 1; size <= 8; size++) {
      range.append(leaves[size - 1]!);
      expect(hex(tree.rootAt(size)), `size ${size}`).toBe(roots.get(size));
      expect(hex(range.root()), `size ${size}`).toBe(roots.get(size));
    }
  });

  it('has the empty-tree root', () => {
    expect(hex(EMPTY_ROOT)).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(MerkleTree.fromLeaves([]).rootAt(0).equals(EMPTY_ROOT)).toBe(true);
    expect(new CompactRange().root().equals(EMPTY_ROOT)).toBe(true);
  });
});

describe('MerkleTree', () => {
  const MAX = 64;
  const all = leafHashes(MAX + 6);
  // A tree larger than any size asked of it, so proofs for prefixes are exercised.
  const big = MerkleTree.fromLeaves(all);

  it('builds the same tree from a list and from one concatenated buffer', () => {
    const fromBuffer = MerkleTree.fromLeaves(Buffer.concat(all));
    expect(fromBuffer.size).toBe(all.length);
    for (let size = 0; size <= all.length; size++) expect(fromBuffer.rootAt(size).equals(big.rootAt(size))).toBe(true);
  });

  it('computes the RFC 6962 root for every prefix, matching a tree of exactly that size', () => {
    for (let size = 0; size <= all.length; size++) {
      const expected = referenceRoot(all.slice(0, size));
      expect(big.rootAt(size).equals(expected), `size ${size}`).toBe(true);
      expect(MerkleTree.fromLeaves(all.slice(0, size)).rootAt().equals(expected), `size ${size}`).toBe(true);
    }
  });

  it('produces inclusion proofs for all sizes 1..64 that verify, and fail with one byte flipped', () => {
    let checked = 0;
    for (let size = 1; size <= MAX; size++) {
      const root = big.rootAt(size);
      const exact = MerkleTree.fromLeaves(all.slice(0, size));
      for (let index = 0; index < size; index++) {
        const leaf = all[index]!;
        const proof = big.inclusionProof(index, size);
        expect(proof).toEqual(exact.inclusionProof(index));
        expect(verifyInclusion(index, size, leaf, proof, root), `${index} in ${size}`).toBe(true);
        for (let e = 0; e < proof.length; e++) {
          expect(verifyInclusion(index, size, leaf, flipByte(proof, e, (e * 7) % 32), root)).toBe(false);
        }
        expect(verifyInclusion(index, size, leaf, [...proof, root], root)).toBe(false);
        if (proof.length > 0) expect(verifyInclusion(index, size, leaf, proof.slice(1), root)).toBe(false);
        checked++;
      }
    }
    expect(checked).toBe((MAX * (MAX + 1)) / 2);
  });

  it('produces consistency proofs for all size pairs up to 64 that verify, and fail with one byte flipped', () => {
    let checked = 0;
    for (let size2 = 1; size2 <= MAX; size2++) {
      const root2 = big.rootAt(size2);
      const exact = MerkleTree.fromLeaves(all.slice(0, size2));
      for (let size1 = 1; size1 <= size2; size1++) {
        const root1 = big.rootAt(size1);
        const proof = big.consistencyProof(size1, size2);
        expect(proof).toEqual(exact.consistencyProof(size1));
        expect(verifyConsistency(size1, size2, proof, root1, root2), `${size1} -> ${size2}`).toBe(true);
        for (let e = 0; e < proof.length; e++) {
          expect(verifyConsistency(size1, size2, flipByte(proof, e, (e * 11) % 32), root1, root2)).toBe(false);
        }
        expect(verifyConsistency(size1, size2, [...proof, root2], root1, root2)).toBe(false);
        if (proof.length > 0) expect(verifyConsistency(size1, size2, proof.slice(0, -1), root1, root2)).toBe(false);
        if (size1 < size2) expect(verifyConsistency(size1, size2, proof, root2, root1)).toBe(false);
        checked++;
      }
    }
    expect(checked).toBe((MAX * (MAX + 1)) / 2);
  });

  it('keeps proofs to O(log n) hashes', () => {
    const tree = MerkleTree.fromLeaves(leafHashes(1000));
    expect(tree.inclusionProof(999).length).toBeLessThanOrEqual(10);
    expect(tree.consistencyProof(333, 1000).length).toBeLessThanOrEqual(2 * 10);
  });

  it('rejects impossible requests and malformed leaves', () => {
    const tree = MerkleTree.fromLeaves(all.slice(0, 8));
    expect(() => tree.rootAt(9)).toThrow(RangeError);
    expect(() => tree.inclusionProof(8, 8)).toThrow(RangeError);
    expect(() => tree.inclusionProof(0, 0)).toThrow(RangeError);
    expect(() => tree.inclusionProof(1.5, 8)).toThrow(RangeError);
    expect(() => tree.consistencyProof(0, 8)).toThrow(RangeError);
    expect(() => tree.consistencyProof(5, 4)).toThrow(RangeError);
    expect(() => tree.consistencyProof(1, 9)).toThrow(RangeError);
    expect(tree.consistencyProof(0, 0)).toEqual([]);
    expect(tree.consistencyProof(8, 8)).toEqual([]);
    expect(() => MerkleTree.fromLeaves([Buffer.alloc(31)])).toThrow(TypeError);
    expect(() => MerkleTree.fromLeaves(Buffer.alloc(33))).toThrow(TypeError);
  });

  it('hands out copies, not its storage', () => {
    const tree = MerkleTree.fromLeaves(all.slice(0, 8));
    const before = tree.rootAt(8);
    tree.rootAt(4).fill(0);
    tree.inclusionProof(0, 8).forEach((hash) => hash.fill(0));
    expect(tree.rootAt(8).equals(before)).toBe(true);
  });
});

describe('verifiers on hostile input', () => {
  const leaves = leafHashes(5);
  const tree = MerkleTree.fromLeaves(leaves);
  const root = tree.rootAt(5);
  const proof = tree.inclusionProof(1, 5);
  const cproof = tree.consistencyProof(3, 5);
  const root3 = tree.rootAt(3);
  const junk = [NaN, -1, 1.5, Infinity, 2 ** 53, '1', null] as unknown as number[];

  it('returns false instead of throwing', () => {
    for (const bad of junk) {
      expect(verifyInclusion(bad, 5, leaves[1]!, proof, root)).toBe(false);
      expect(verifyInclusion(1, bad, leaves[1]!, proof, root)).toBe(false);
      expect(verifyConsistency(bad, 5, cproof, root3, root)).toBe(false);
      expect(verifyConsistency(3, bad, cproof, root3, root)).toBe(false);
    }
    const notBytes = ['00'.repeat(32), null, undefined, [1, 2]] as unknown as Uint8Array[];
    for (const bad of notBytes) {
      expect(verifyInclusion(1, 5, bad, proof, root)).toBe(false);
      expect(verifyInclusion(1, 5, leaves[1]!, proof, bad)).toBe(false);
      expect(verifyInclusion(1, 5, leaves[1]!, [bad, ...proof.slice(1)], root)).toBe(false);
      expect(verifyConsistency(3, 5, cproof, bad, root)).toBe(false);
      expect(verifyConsistency(3, 5, [bad, ...cproof.slice(1)], root3, root)).toBe(false);
    }
    expect(verifyInclusion(1, 5, leaves[1]!, null as unknown as Uint8Array[], root)).toBe(false);
    expect(verifyConsistency(3, 5, 'x' as unknown as Uint8Array[], root3, root)).toBe(false);
    expect(verifyInclusion(1, 5, leaves[1]!, Array<Uint8Array>(1000).fill(root), root)).toBe(false);
  });

  it('rejects short and long hashes', () => {
    expect(verifyInclusion(1, 5, leaves[1]!, proof.map((h) => h.subarray(0, 31)), root)).toBe(false);
    expect(verifyInclusion(1, 5, leaves[1]!, proof, Buffer.concat([root, Buffer.alloc(1)]))).toBe(false);
    expect(verifyConsistency(3, 5, cproof, root3.subarray(0, 31), root)).toBe(false);
  });

  it('treats the empty tree as having only the empty root', () => {
    expect(verifyConsistency(0, 0, [], EMPTY_ROOT, EMPTY_ROOT)).toBe(true);
    expect(verifyConsistency(0, 0, [], root, root)).toBe(false);
    expect(verifyConsistency(0, 5, [], EMPTY_ROOT, root)).toBe(false);
    expect(verifyConsistency(5, 5, [], root, root)).toBe(true);
    expect(verifyConsistency(5, 5, [root], root, root)).toBe(false);
  });
});

describe('CompactRange', () => {
  const leaves = leafHashes(200);
  const tree = MerkleTree.fromLeaves(leaves);

  it('has the root of MerkleTree.rootAt for sizes 0..200', () => {
    const range = new CompactRange();
    for (let size = 0; size <= 200; size++) {
      expect(range.size).toBe(size);
      expect(range.root().equals(tree.rootAt(size)), `size ${size}`).toBe(true);
      if (size < 200) range.append(leaves[size]!);
    }
  });

  it('clones independently', () => {
    const range = new CompactRange();
    leaves.slice(0, 37).forEach((leaf) => range.append(leaf));
    const copy = range.clone();
    range.append(leaves[37]!);
    expect(copy.size).toBe(37);
    expect(copy.root().equals(tree.rootAt(37))).toBe(true);
    expect(range.root().equals(tree.rootAt(38))).toBe(true);
    copy.append(leaves[37]!);
    copy.append(leaves[38]!);
    expect(copy.root().equals(tree.rootAt(39))).toBe(true);
  });

  it('does not alias the caller\'s buffers', () => {
    const range = new CompactRange();
    const leaf = Buffer.from(leaves[0]!);
    range.append(leaf);
    leaf.fill(0);
    range.root().fill(0);
    expect(range.root().equals(tree.rootAt(1))).toBe(true);
  });

  it('rejects leaf hashes that are not 32 bytes', () => {
    expect(() => new CompactRange().append(Buffer.alloc(16))).toThrow(TypeError);
  });

  it('has the same roots when given the leaves as hex, and rejects hex that is not 32 bytes of it', () => {
    const range = new CompactRange();
    for (let size = 0; size < 200; size++) {
      range.appendHex(leaves[size]!.toString('hex'));
      expect(range.root().equals(tree.rootAt(size + 1)), `size ${size + 1}`).toBe(true);
    }
    const hex = leaves[0]!.toString('hex');
    for (const bad of [hex.slice(0, -2), `${hex}00`, `${hex.slice(0, -1)}g`, `x${hex.slice(1)}`, '']) {
      const fresh = new CompactRange();
      expect(() => fresh.appendHex(bad), bad).toThrow(TypeError);
      expect(fresh.size).toBe(0);
    }
  });
});

describe('hashLeafHex', () => {
  it('is hashLeaf in hex, for lines shorter and longer than its scratch buffer', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 200 }), fc.uint8Array({ minLength: 4090, maxLength: 4200 })), (data) => {
        expect(hashLeafHex(data)).toBe(hashLeaf(data).toString('hex'));
      }),
      { numRuns: 500, seed: 7 },
    );
  });
});
