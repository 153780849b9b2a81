/**
 * A word on its way through expansion, as one string that still knows which characters were
 * quoted: a backslash before a character means "this character is literal" (it was quoted or
 * escaped in the command), and a bare character from the private-use range U+E000–U+E0FF stands
 * for a dynamic part (`$X`, `$(…)`) by its index. Brace expansion and globbing only act on bare
 * characters, which is exactly bash's rule that quoting disables them.
 *
 * Any character of the command that happens to lie in that private-use range is always written
 * escaped, so it can never be mistaken for a dynamic part.
 */

const ATOM_BASE = 0xe000;
export const MAX_ATOMS = 0x100;

/** Marks every character of `text` literal. */
export function literal(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i += 1) out += `\\${text[i] as string}`;
  return out;
}

/** Leaves characters bare (subject to braces and globs) except backslashes and private-use ones. */
export function bare(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] as string;
    const code = char.charCodeAt(0);
    out += char === '\\' || (code >= ATOM_BASE && code < ATOM_BASE + MAX_ATOMS) ? `\\${char}` : char;
  }
  return out;
}

export function atom(index: number): string {
  return String.fromCharCode(ATOM_BASE + index);
}

/** The index of the atom `char` stands for, or -1. Only meaningful for a bare character. */
export function atomIndex(char: string): number {
  const code = char.charCodeAt(0);
  return code >= ATOM_BASE && code < ATOM_BASE + MAX_ATOMS ? code - ATOM_BASE : -1;
}

/** The first dynamic part in `marked`, or -1. */
export function firstAtom(marked: string): number {
  for (let i = 0; i < marked.length; i += 1) {
    const char = marked[i] as string;
    if (char === '\\') {
      i += 1;
      continue;
    }
    const index = atomIndex(char);
    if (index !== -1) return index;
  }
  return -1;
}

/** True when some bare character of `marked` is in `set`. */
export function hasBare(marked: string, set: string): boolean {
  for (let i = 0; i < marked.length; i += 1) {
    const char = marked[i] as string;
    if (char === '\\') i += 1;
    else if (set.includes(char)) return true;
  }
  return false;
}

/** The text with quoting removed (atoms replaced by `render(index)`). */
export function unmark(marked: string, render: (index: number) => string = () => ''): string {
  if (!marked.includes('\\') && firstAtom(marked) === -1) return marked;
  let out = '';
  for (let i = 0; i < marked.length; i += 1) {
    const char = marked[i] as string;
    if (char === '\\') {
      out += marked[i + 1] ?? '';
      i += 1;
    } else {
      const index = atomIndex(char);
      out += index === -1 ? char : render(index);
    }
  }
  return out;
}
