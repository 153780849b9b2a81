import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/events/canonical.js';
import { checkEvent, checkParsedRecord, checkParsedRecordButPrevHash, checkRecord } from '../../src/events/catalogue.js';

const lines = (await readFile('testdata/ledgers/valid/ledger.jsonl', 'utf8')).trimEnd().split('\n');
const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);

/** Paths to every value inside a record's data, so a mutation can reach nested fields (claims, action, keys). */
function dataPaths(value: unknown, prefix: string[] = []): string[][] {
  if (typeof value !== 'object' || value === null) return [prefix];
  return [prefix, ...Object.entries(value).flatMap(([key, inner]) => dataPaths(inner, [...prefix, key]))];
}

function setAt(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node: Record<string, unknown> = target;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  const last = path.at(-1);
  if (last === undefined) return;
  if (value === undefined) delete node[last];
  else node[last] = value;
}

const oddValues = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.constantFrom(0, 1, -1, 1.5, -0, 2 ** 53, 2 ** 53 - 1, 253_402_300_799, 253_402_300_800),
  fc.double(),
  fc.string({ maxLength: 3 }),
  fc.constantFrom('a'.repeat(16_385), 'sha256:' + '0'.repeat(64), 'sha256:' + 'A'.repeat(64), 'act_allow_0', 'bad id', 'rule_allow', 'Bad_code', 'Ed25519', 'svc.ledger.v0', 'svc.action.v0', 'A'.repeat(43) + '=', 'allow', 'proxy', 'succeeded', true, false),
  fc.array(fc.constantFrom('rule_allow', 'X', 1), { maxLength: 3 }),
  fc.constant(Array.from({ length: 65 }, () => 'r')),
  fc.object({ maxDepth: 1 }),
  fc.constant([]),
);

/** A copy of records[index] with `value` at one of its data paths, the one pathIndex picks. */
function mutatedRecord(index: number, pathIndex: number, value: unknown): Record<string, unknown> {
  const record = structuredClone(records[index]) as Record<string, unknown>;
  const paths = dataPaths(record.data, ['data']).filter((path) => path.length > 1);
  const path = paths[pathIndex % paths.length];
  if (path) setAt(record, path, value);
  return record;
}

describe('checkParsedRecord', () => {
  it('accepts every record of the valid fixture, as the record given', () => {
    for (const record of records) {
      const checked = checkParsedRecord(record);
      expect(checked.ok).toBe(true);
      if (checked.ok) expect(checked.record).toBe(record);
    }
  });

  it('gives checkRecord’s verdict and message on 10,000 records mutated anywhere in their data', () => {
    fc.assert(
      fc.property(fc.nat(records.length - 1), fc.nat(), oddValues, (index, pathIndex, value) => {
        const record = mutatedRecord(index, pathIndex, value);
        const fast = checkParsedRecord(record);
        const reference = checkRecord(record);
        expect(fast.ok).toBe(reference.ok);
        if (!fast.ok && !reference.ok) expect(fast.message).toBe(reference.message);
        if (fast.ok && reference.ok) expect(fast.record).toEqual(reference.record);
      }),
      { numRuns: 10_000, seed: 11 },
    );
  });

  it('gives checkRecord’s verdict and message when the stream, or the identifier it is made of, changes (it skips the stream pattern)', () => {
    const odd = ['bad id', '', 'a'.repeat(200), 'a'.repeat(201), 'x\n', '\n', 'é', 'ok.id', 'a:b/c+d@e-f', 'ledger', 'action:x', 7, null];
    const streams = ['ledger', 'config', 'ledger ', 'Ledger', 'action:', 'mcp:', 'action:bad id', 'other:x', '', 7, undefined];
    for (const record of records) {
      const data = record.data as Record<string, unknown>;
      const variants: Record<string, unknown>[] = streams.map((stream) => ({ ...record, stream }));
      for (const key of ['actionId', 'server']) {
        if (!(key in data)) continue;
        const prefix = key === 'server' ? 'mcp:' : 'action:';
        for (const id of odd) {
          variants.push({ ...record, data: { ...data, [key]: id }, stream: `${prefix}${String(id)}` });
          variants.push({ ...record, data: { ...data, [key]: id } });
        }
      }
      for (const variant of variants) {
        const fast = checkParsedRecord(variant);
        const reference = checkRecord(variant);
        expect(fast.ok, JSON.stringify(variant.stream)).toBe(reference.ok);
        if (!fast.ok && !reference.ok) expect(fast.message).toBe(reference.message);
      }
    }
  });

  it('gives checkRecord’s verdict when a data object gains an unknown or a __proto__ key', () => {
    for (const record of records) {
      for (const path of dataPaths(record.data, ['data'])) {
        for (const key of ['extra', '__proto__']) {
          const mutated = structuredClone(record);
          let node: unknown = mutated;
          for (const step of path) node = (node as Record<string, unknown>)[step];
          if (typeof node !== 'object' || node === null || Array.isArray(node)) continue;
          Object.defineProperty(node, key, { value: 'x', enumerable: true, configurable: true, writable: true });
          expect(checkParsedRecord(mutated).ok, `${path.join('.')}.${key}`).toBe(checkRecord(mutated).ok);
        }
      }
    }
  });
});

describe('checkParsedRecord, remembering the sha256 texts it passed', () => {
  it('does not pass another spelling of a hash it has just passed, nor a near miss', () => {
    const record = records.find((candidate) => candidate.type === 'execution.completed') as Record<string, unknown>;
    const data = record.data as Record<string, string>;
    const hash = data.executedPayloadHash as string;
    const spellings = [hash.toUpperCase(), `${hash}0`, hash.slice(0, -1), `${hash.slice(0, -1)}g`, ` ${hash.slice(1)}`, hash.replace('sha256:', 'SHA256:')];
    for (const spelling of spellings) {
      expect(checkParsedRecord(record).ok).toBe(true);
      const mutated = { ...record, data: { ...data, executedPayloadHash: spelling } };
      expect(checkParsedRecord(mutated), spelling).toEqual(checkRecord(mutated));
      expect(checkParsedRecord(mutated).ok, spelling).toBe(false);
    }
  });
});

describe('checkParsedRecord, remembering more sha256 texts than it keeps', () => {
  it('gives checkRecord’s verdict and message on 300 distinct hashes and their near misses, in turn, while what it remembers fills and empties', () => {
    const record = records.find((candidate) => candidate.type === 'execution.completed') as Record<string, unknown>;
    const data = record.data as Record<string, string>;
    for (let index = 0; index < 300; index += 1) {
      const hash = `sha256:${index.toString(16).padStart(64, '0')}`;
      for (const spelling of [hash, hash.toUpperCase(), `${hash.slice(0, -1)}g`, hash, `sha256:${index.toString(16).padStart(64, 'A')}`]) {
        const mutated = { ...record, data: { ...data, resultHash: spelling } };
        expect(checkParsedRecord(mutated), spelling).toEqual(checkRecord(mutated));
      }
    }
  });
});

describe('checkParsedRecordButPrevHash', () => {
  it('gives checkParsedRecord’s verdict and message on 3,000 records mutated anywhere in their data', () => {
    fc.assert(
      fc.property(fc.nat(records.length - 1), fc.nat(), oddValues, (index, pathIndex, value) => {
        const record = mutatedRecord(index, pathIndex, value);
        expect(checkParsedRecordButPrevHash(record)).toEqual(checkParsedRecord(record));
      }),
      { numRuns: 3_000, seed: 12 },
    );
  });

  it('leaves only the form of a string prevHash unchecked; a refused record is worded by checkRecord, prevHash included', () => {
    for (const record of records) {
      for (const prevHash of [`sha256:${'A'.repeat(64)}`, 'sha256:', '', 'x'.repeat(71)]) {
        const mutated = { ...record, prevHash };
        expect(checkParsedRecord(mutated).ok).toBe(false);
        expect(checkParsedRecordButPrevHash(mutated).ok).toBe(true);
        const alsoBadTs = { ...mutated, ts: 'yesterday' };
        expect(checkParsedRecordButPrevHash(alsoBadTs)).toEqual(checkRecord(alsoBadTs));
      }
      for (const prevHash of [7, null, undefined]) {
        const mutated = { ...record, prevHash };
        expect(checkParsedRecordButPrevHash(mutated)).toEqual(checkRecord(mutated));
        expect(checkParsedRecordButPrevHash(mutated).ok).toBe(false);
      }
    }
  });
});

describe('checkEvent', () => {
  /** The appended event inside a record envelope, so checkRecord (zod throughout) is the reference. */
  function referenceCheck(event: Record<string, unknown>) {
    return checkRecord({ v: 0, seq: 1, ts: '2026-01-01T00:00:00.000Z', prevHash: `sha256:${'0'.repeat(64)}`, ...event });
  }

  it('gives the zod verdict, and data with the same canonical bytes, on 10,000 events mutated anywhere in their data', () => {
    fc.assert(
      fc.property(fc.nat(records.length - 1), fc.nat(), oddValues, (index, pathIndex, value) => {
        const { type, stream, data } = structuredClone(records[index]) as Record<string, unknown>;
        const event: Record<string, unknown> = { type, stream, data };
        const paths = dataPaths(data, ['data']).filter((candidate) => candidate.length > 1);
        const path = paths[pathIndex % paths.length];
        if (path) setAt(event, path, value);
        const fast = checkEvent(event);
        const reference = referenceCheck(event);
        expect(fast.ok).toBe(reference.ok);
        if (fast.ok && reference.ok) expect(canonicalJson(fast.event.data)).toBe(canonicalJson(reference.record.data));
      }),
      { numRuns: 10_000, seed: 12 },
    );
  });

  it('names the first unknown key as Object.keys of the rest of the event would, inherited keys left out (2,000 cases)', () => {
    const name = fc.constantFrom('type', 'stream', 'data', 'extra', 'b', 'a', '7', '12', '__proto__');
    fc.assert(
      fc.property(fc.nat(records.length - 1), fc.array(name, { maxLength: 5 }), fc.array(name, { maxLength: 3 }), (index, own, inherited) => {
        const { type, stream, data } = records[index] as Record<string, unknown>;
        const prototype: Record<string, unknown> = {};
        for (const key of inherited) Object.defineProperty(prototype, key, { value: 1, enumerable: true, configurable: true, writable: true });
        const event = Object.create(prototype) as Record<string, unknown>;
        for (const key of [...own, 'type', 'stream', 'data']) Object.defineProperty(event, key, { value: key === 'type' ? type : key === 'stream' ? stream : key === 'data' ? data : 'x', enumerable: true, configurable: true, writable: true });
        const { type: _type, stream: _stream, data: _data, ...rest } = event;
        const extra = Object.keys(rest)[0];
        const verdict = checkEvent(event);
        if (extra === undefined) expect(verdict.ok).toBe(true);
        else expect(verdict).toEqual({ ok: false, message: `event: unknown key ${extra}` });
      }),
      { numRuns: 2_000, seed: 13 },
    );
  });
});

describe('the fast path against checkRecord, on hostile values of every field type', () => {
  const validHash = `sha256:${'0123456789abcdef'.repeat(4)}`;
  const hostile: unknown[] = [
    // identifiers: every kind of character the class leaves out, and the length bounds
    '', 'a', 'a'.repeat(200), 'a'.repeat(201), 'ok.id', 'A-Z_a.z:0@9/+-', 'bad id', 'tab\t', 'new\nline', 'nul\u0000', 'é', '€', 'ｆ', '\ud800', 'x\udc00', '\ud83d\ude00', '#', '!', '~', '*', '%', '\\', '"', ',', '=', '?', '[', '{', '`', '\u007f', '\u0080', String.fromCharCode(0x2d + 0x100), String.fromCharCode(0x61 + 0x100),
    // sha256 texts: uppercase, out-of-range digits, wrong lengths, surrogates and look-alikes
    validHash, validHash.toUpperCase(), validHash.replace('sha256:', 'SHA256:'), `${validHash}0`, validHash.slice(0, -1), `${validHash.slice(0, -1)}g`, `${validHash.slice(0, -1)}G`, `${validHash.slice(0, -1)}\ud800`, `${validHash.slice(0, -2)}\ud83d\ude00`, `${validHash.slice(0, -1)}${String.fromCharCode(0x61 + 0x100)}`, ` ${validHash.slice(1)}`, `sha256:${'0'.repeat(64)}`, `sha256:${'f'.repeat(64)}`, `sha256:${'/'.repeat(64)}`, `sha256:${':'.repeat(64)}`, `sha256:${'`'.repeat(64)}`,
    // times, reason codes, enums, base64
    '2026-11-21T10:00:00.000Z', '2026-11-21T10:00:00.000z', '2026-02-30T10:00:00.000Z', '2026-11-21T10:00:00.000Z\n', '2026-11-21 10:00:00.000Z', '२०२६-11-21T10:00:00.000Z', 'rule_allow', 'Rule_allow', 'rule-allow', 'allow', 'ALLOW', 'proxy', 'succeeded', 'Ed25519', 'svc.ledger.v0', 'svc.action.v0', `${'A'.repeat(43)}=`, `${'A'.repeat(42)}==`,
    // other types and shapes
    undefined, null, true, false, 0, -0, 1, -1, 1.5, 2 ** 53, 2 ** 53 - 1, Number.NaN, Number.POSITIVE_INFINITY, 253_402_300_799, 253_402_300_800,
    [], ['rule_allow'], [1], {}, { a: 1 }, JSON.parse('{"__proto__":{"x":1}}'), JSON.parse('{"constructor":1}'), new Date(0), 'x'.repeat(16_385), 'x'.repeat(65_537),
  ];

  /** Every path inside a record (envelope and data), to set a hostile value at. */
  function recordPaths(record: Record<string, unknown>): string[][] {
    return [...['v', 'seq', 'ts', 'stream', 'prevHash', 'type'].map((key) => [key]), ...dataPaths(record.data, ['data'])];
  }

  function expectSameAsReference(record: unknown, label: string): void {
    const reference = checkRecord(record);
    const fast = checkParsedRecord(record);
    expect(fast.ok, label).toBe(reference.ok);
    if (!fast.ok && !reference.ok) expect(fast.message, label).toBe(reference.message);
    const butPrevHash = checkParsedRecordButPrevHash(record);
    // The one difference allowed: a prevHash of the wrong form is accepted when all else is.
    if (butPrevHash.ok !== reference.ok) expect(typeof (record as Record<string, unknown>).prevHash === 'string' && reference.ok === false && reference.message.startsWith('prevHash:'), label).toBe(true);
    else if (!butPrevHash.ok && !reference.ok) expect(butPrevHash.message, label).toBe(reference.message);
  }

  it('gives checkRecord’s verdict and message for each hostile value at each path of each record, the record checked just before', () => {
    for (const record of records) {
      for (const path of recordPaths(record)) {
        for (const value of hostile) {
          // The valid record first, so that what the fast path remembers of it (its ts, its hashes) is fresh.
          expect(checkParsedRecord(record).ok).toBe(true);
          const mutated = structuredClone(record);
          setAt(mutated, path, value);
          expectSameAsReference(mutated, `${path.join('.')} = ${JSON.stringify(value)}`);
        }
      }
    }
  });

  it('gives checkRecord’s verdict and message when the envelope keys come in another order, or one is missing, extra, doubled by an inherited key or a prototype key', () => {
    const envelopeKeys = ['data', 'prevHash', 'seq', 'stream', 'ts', 'type', 'v'];
    fc.assert(
      fc.property(fc.nat(records.length - 1), fc.shuffledSubarray(envelopeKeys, { minLength: 5 }), fc.constantFrom(undefined, 'extra', '__proto__', 'constructor', 'toString', 'v', 'data'), fc.boolean(), (index, keys, added, inherit) => {
        const record = records[index] as Record<string, unknown>;
        const prototype: Record<string, unknown> = {};
        if (inherit && added !== undefined) Object.defineProperty(prototype, added, { value: record[added] ?? 'x', enumerable: true, configurable: true, writable: true });
        const mutated = Object.create(prototype) as Record<string, unknown>;
        for (const key of keys) mutated[key] = record[key];
        if (!inherit && added !== undefined) Object.defineProperty(mutated, added, { value: record[added] ?? 'x', enumerable: true, configurable: true, writable: true });
        expectSameAsReference(mutated, `${keys.join(',')} + ${String(added)} ${inherit ? 'inherited' : 'own'}`);
      }),
      { numRuns: 3_000, seed: 14 },
    );
  });

  it('gives checkRecord’s verdict for an array, or an array-like, where the record or an object of its data is expected', () => {
    for (const record of records) {
      expectSameAsReference([record], 'record in an array');
      expectSameAsReference(Object.assign([], record), 'record as array');
      for (const path of dataPaths(record.data, ['data'])) {
        const mutated = structuredClone(record);
        let node: unknown = mutated;
        for (const step of path) node = (node as Record<string, unknown>)[step];
        if (typeof node !== 'object' || node === null || Array.isArray(node)) continue;
        setAt(mutated, path, Object.assign([], node));
        expectSameAsReference(mutated, `${path.join('.')} as an array`);
      }
    }
  });
});
