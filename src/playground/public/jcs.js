// RFC 8785 (JCS) canonical JSON for the values svc hashes: object keys sorted by UTF-16 code
// units, no whitespace, ECMAScript number and string serialization (which JCS adopts).
// Checked against the server's canonicalJson with fast-check (test/playground/jcs.property.test.ts).
export function canonicalize(value) {
  if (value === null || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('JCS cannot represent a non-finite number');
    return JSON.stringify(value);
  }
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalize(item))).join(',')}]`;
  if (typeof value === 'object') {
    const keys = Object.keys(value).filter((key) => value[key] !== undefined).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalize(value[key])}`).join(',')}}`;
  }
  throw new Error(`JCS cannot represent a ${typeof value}`);
}
