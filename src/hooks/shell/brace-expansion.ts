import { MAX_BRACE_FIELDS } from './analysis-limits.js';
import { bare, unmark } from './marked-text.js';

/**
 * Bash brace expansion on a marked word (see marked-text.ts): `.{env,npmrc}` is `.env .npmrc`,
 * `f{1..3}` is `f1 f2 f3`, `a{b,c{d,e}}` nests. It happens before every other expansion, so a
 * dynamic part inside one alternative leaves the others static: `{$X,.env}` still names `.env`.
 * Only bare braces and commas count; quoted ones are text.
 */

export class BraceLimitExceeded extends Error {
  constructor() {
    super(`brace expansion makes more than ${MAX_BRACE_FIELDS} words`);
  }
}

/** The words `marked` expands to, in bash's order. Throws BraceLimitExceeded beyond the limit. */
export function expandBraces(marked: string): string[] {
  if (!marked.includes('{')) return [marked];
  const out: string[] = [];
  expandInto(marked, out);
  return out;
}

function expandInto(marked: string, out: string[]): void {
  for (let open = 0; open < marked.length; open += 1) {
    const char = marked[open];
    if (char === '\\') {
      open += 1;
      continue;
    }
    if (char !== '{') continue;
    const group = matchGroup(marked, open);
    if (group === undefined) continue;
    const prefix = marked.slice(0, open);
    const suffix = marked.slice(group.close + 1);
    const body = marked.slice(open + 1, group.close);
    let items: string[] | undefined;
    if (group.commas.length > 0) {
      items = [];
      let from = 0;
      for (const comma of group.commas) {
        items.push(body.slice(from, comma - open - 1));
        from = comma - open;
      }
      items.push(body.slice(from));
    } else {
      items = sequence(body);
    }
    if (items === undefined) continue;
    for (const item of items) {
      expandInto(prefix + item + suffix, out);
      if (out.length > MAX_BRACE_FIELDS) throw new BraceLimitExceeded();
    }
    return;
  }
  out.push(marked);
  if (out.length > MAX_BRACE_FIELDS) throw new BraceLimitExceeded();
}

/** The bare `}` closing the `{` at `open`, and the bare commas at its top level. */
function matchGroup(marked: string, open: number): { close: number; commas: number[] } | undefined {
  let depth = 0;
  const commas: number[] = [];
  for (let i = open + 1; i < marked.length; i += 1) {
    const char = marked[i];
    if (char === '\\') i += 1;
    else if (char === '{') depth += 1;
    else if (char === '}') {
      if (depth === 0) return { close: i, commas };
      depth -= 1;
    } else if (char === ',' && depth === 0) commas.push(i);
  }
  return undefined;
}

const NUMERIC = /^([-+]?\d+)\.\.([-+]?\d+)(?:\.\.([-+]?\d+))?$/;
const LETTERS = /^([A-Za-z])\.\.([A-Za-z])(?:\.\.([-+]?\d+))?$/;

/** `1..5`, `05..10`, `1..10..3`, `a..e`: the items of a sequence expression, or undefined. */
function sequence(body: string): string[] | undefined {
  if (unmark(body) !== body) return undefined;
  const numeric = NUMERIC.exec(body);
  const letters = numeric ? null : LETTERS.exec(body);
  const match = numeric ?? letters;
  if (!match) return undefined;
  const [, fromText = '', toText = '', stepText] = match;
  const from = numeric ? Number(fromText) : fromText.charCodeAt(0);
  const to = numeric ? Number(toText) : toText.charCodeAt(0);
  const step = Math.abs(stepText === undefined ? 1 : Number(stepText)) || 1;
  const count = Math.floor(Math.abs(to - from) / step) + 1;
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || count > MAX_BRACE_FIELDS) throw new BraceLimitExceeded();
  const width = numeric && (/^[-+]?0\d/.test(fromText) || /^[-+]?0\d/.test(toText)) ? Math.max(fromText.length, toText.length) : 0;
  const items: string[] = [];
  const direction = to >= from ? 1 : -1;
  for (let index = 0, value = from; index < count; index += 1, value += direction * step) {
    if (!numeric) items.push(bare(String.fromCharCode(value)));
    else if (width === 0) items.push(String(value));
    else items.push(value < 0 ? `-${String(-value).padStart(width - 1, '0')}` : String(value).padStart(width, '0'));
  }
  return items;
}
