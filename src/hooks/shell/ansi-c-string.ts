/**
 * The value of a bash `$'…'` string: `$'\x2eenv'` is `.env`, `$'\056env'` too. Decoding it is
 * what stops escapes from hiding a protected name. `inner` is the text between `$'` and `'`.
 *
 * Bash builds the value as bytes (`\xc3\xa9` is the UTF-8 of `é`) and, being a C string, ends it
 * at the first NUL; both are reproduced here.
 */
export function decodeAnsiC(inner: string): string {
  if (!inner.includes('\\')) return inner;
  const bytes: number[] = [];
  const text = (value: string): void => {
    for (const byte of Buffer.from(value, 'utf8')) bytes.push(byte);
  };
  for (let i = 0; i < inner.length; i += 1) {
    const char = inner[i] as string;
    if (char !== '\\' || i + 1 >= inner.length) {
      text(char === '\\' ? char : (String.fromCodePoint(inner.codePointAt(i) as number)));
      if ((inner.codePointAt(i) as number) > 0xffff) i += 1;
      continue;
    }
    const next = inner[i + 1] as string;
    i += 1;
    let byte: number | undefined;
    const simple = SIMPLE_ESCAPES[next];
    if (simple !== undefined) {
      byte = simple;
    } else if (isOctal(next)) {
      const digits = takeWhile(inner, i, 3, isOctal);
      byte = parseInt(digits, 8) & 0xff;
      i += digits.length - 1;
    } else if (next === 'x') {
      const digits = takeWhile(inner, i + 1, 2, isHex);
      if (digits === '') text('\\x');
      else byte = parseInt(digits, 16);
      i += digits.length;
    } else if (next === 'u' || next === 'U') {
      const digits = takeWhile(inner, i + 1, next === 'u' ? 4 : 8, isHex);
      const code = digits === '' ? NaN : parseInt(digits, 16);
      if (code === 0) return finish(bytes);
      text(Number.isNaN(code) || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? `\\${next}${digits}` : String.fromCodePoint(code));
      i += digits.length;
    } else if (next === 'c' && i + 1 < inner.length) {
      // Control character: \cA is 0x01; bash masks the character with 0x1f.
      byte = inner.charCodeAt(i + 1) & 0x1f;
      i += 1;
    } else {
      text(`\\${next}`);
    }
    if (byte === 0) return finish(bytes);
    if (byte !== undefined) bytes.push(byte);
  }
  return finish(bytes);
}

function finish(bytes: number[]): string {
  return Buffer.from(bytes).toString('utf8');
}

const SIMPLE_ESCAPES: Record<string, number> = {
  a: 0x07,
  b: 0x08,
  e: 0x1b,
  E: 0x1b,
  f: 0x0c,
  n: 0x0a,
  r: 0x0d,
  t: 0x09,
  v: 0x0b,
  '\\': 0x5c,
  "'": 0x27,
  '"': 0x22,
  '?': 0x3f,
};

const isOctal = (char: string): boolean => char >= '0' && char <= '7';
const isHex = (char: string): boolean => (char >= '0' && char <= '9') || (char >= 'a' && char <= 'f') || (char >= 'A' && char <= 'F');

function takeWhile(text: string, from: number, max: number, accept: (char: string) => boolean): string {
  let end = from;
  while (end < text.length && end - from < max && accept(text[end] as string)) end += 1;
  return text.slice(from, end);
}
