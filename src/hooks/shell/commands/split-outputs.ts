import { parseArguments, staticWord } from '../argument-parser.js';
import type { CommandContext, CommandConvention } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { argumentsOf } from './operands.js';

/**
 * split and csplit read one file and write pieces of it to files named PREFIX + a generated
 * suffix: `split -n 12 -a 1 README.md svc.ym` writes `svc.yma` … `svc.yml`, the last of which
 * is a guard file. Which names are written follows from the options:
 * - when the number of pieces is known and small (`split -n 12`, `csplit f 3 7`), each name is
 *   a write;
 * - otherwise every name the suffixes can spell that already exists is a write (it will be
 *   overwritten), and so is the name pattern `PREFIX*SUFFIX` itself, which a protected
 *   directory (`.svc/part_*`) or a protected name pattern still recognises;
 * - when even that set is too large to look at (`-a 5`) or the names cannot be worked out (a
 *   prefix or suffix known only at run time, a csplit suffix format this analysis does not
 *   know), the write is dynamic.
 */

/** Names reported one by one when the number of pieces is known. */
const MAX_LISTED_PIECES = 64;
/** Names looked up on disk when the number of pieces is not known (split's default: 26² = 676). */
const MAX_PROBED_NAMES = 1000;

/** The pieces a command writes: their names are `prefix + suffixes[i] + additional`. */
interface OutputNames {
  prefix: Word;
  /** The suffixes, in order, when the names can be spelled. */
  suffixes: readonly string[] | undefined;
  /** True when every suffix listed is written; false when only some of them (the count is not known). */
  allWritten: boolean;
  additional: string;
}

function reportOutputs(context: CommandContext, outputs: OutputNames, via: string): void {
  const { prefix, suffixes, additional } = outputs;
  if (prefix.value === undefined || suffixes === undefined) {
    context.dynamic('write', `${prefix.value ?? prefix.text}*${additional}`, prefix.value === undefined ? prefix.reason : 'unsupported', via);
    return;
  }
  const names = suffixes.map((suffix) => staticWord(`${prefix.value as string}${suffix}${additional}`));
  if (outputs.allWritten) {
    for (const name of names) context.file('write', name, via);
    return;
  }
  for (const name of context.existing(names)) context.file('write', name, via);
  context.file('write', staticWord(`${prefix.value}*${additional}`), `${via} (names to come)`);
}

/** The first `count` strings of `length` letters of `alphabet` from `start` on (`aa`, `ab`, …); undefined past `limit`. */
function spelledSuffixes(alphabet: string, length: number, start: number, count: number, limit: number): string[] | undefined {
  const available = alphabet.length ** length - start;
  const wanted = Math.min(count, available);
  if (!Number.isFinite(wanted) || wanted > limit || wanted < 0) return undefined;
  const suffixes: string[] = [];
  for (let index = start; index < start + wanted; index += 1) {
    let rest = index;
    let suffix = '';
    for (let position = 0; position < length; position += 1) {
      suffix = (alphabet[rest % alphabet.length] as string) + suffix;
      rest = Math.floor(rest / alphabet.length);
    }
    suffixes.push(suffix);
  }
  return suffixes;
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const HEX_DIGITS = '0123456789abcdef';

/**
 * split [-a N] [-d|-x|--numeric-suffixes[=FROM]|--hex-suffixes[=FROM]] [--additional-suffix=S]
 * [-l|-b|-C|-n …] [--filter=CMD] [INPUT [PREFIX]]. `--filter` is shell code run for each piece
 * (which writes where it wants, split itself nothing); `-n K/N` prints one piece.
 */
const SPLIT: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'lbCnat', long: ['lines', 'bytes', 'line-bytes', 'number', 'suffix-length', 'additional-suffix', 'separator', 'filter'] });
    const [input, prefix = staticWord('x')] = parsed.operands;
    if (input !== undefined) context.file('read', input, 'split input');
    const filter = parsed.last('--filter');
    if (filter !== undefined) {
      if (filter.value === undefined) context.dynamic('execute', filter.text, filter.reason, 'split --filter');
      else context.script(filter.value, 'split --filter');
      return;
    }
    const number = parsed.last('-n', '--number');
    // `-n K/N`, `-n l/K/N`: piece K to standard output.
    if (number?.value !== undefined && /^(?:[lr]\/)?\d+\/\d+$/.test(number.value)) return;
    const numeric = parsed.options.find((option) => option.name === '-d' || option.name === '--numeric-suffixes');
    const hex = parsed.options.find((option) => option.name === '-x' || option.name === '--hex-suffixes');
    const alphabet = numeric !== undefined ? DIGITS : hex !== undefined ? HEX_DIGITS : LETTERS;
    const start = Number((numeric ?? hex)?.value?.value ?? '0');
    const pieces = number === undefined ? undefined : /^(?:[lr]\/)?(\d+)$/.exec(number.value ?? '')?.[1];
    const lengthWord = parsed.last('-a', '--suffix-length');
    let length = Number(lengthWord?.value ?? '2');
    // With -n and no -a, the suffixes grow to fit the number of pieces.
    if (pieces !== undefined && lengthWord === undefined) while (alphabet.length ** length < Number(pieces) + start) length += 1;
    const additionalWord = parsed.last('--additional-suffix');
    const known = Number.isInteger(length) && length > 0 && Number.isInteger(start) && start >= 0 && (number === undefined || pieces !== undefined) && (additionalWord === undefined || additionalWord.value !== undefined);
    const count = pieces === undefined ? Number.POSITIVE_INFINITY : Number(pieces);
    const listed = count <= MAX_LISTED_PIECES;
    const suffixes = known ? spelledSuffixes(alphabet, length, start, count, listed ? MAX_LISTED_PIECES : MAX_PROBED_NAMES) : undefined;
    reportOutputs(context, { prefix, suffixes, allWritten: listed, additional: additionalWord?.value ?? '' }, 'split output');
  },
};

/** A printf conversion csplit's `-b` allows: flags, width, precision, one of d i u o x X. */
const SUFFIX_FORMAT = /^([^%]*)%([-0 +#']*)(\d*)(?:\.(\d*))?([diuoxX])([^%]*)$/;

/** csplit's `-b FORMAT` applied to a piece number, or undefined for a format not understood here. */
function formatSuffix(format: string, value: number): string | undefined {
  const match = SUFFIX_FORMAT.exec(format.replaceAll('%%', '\u0000'));
  if (match === null) return undefined;
  const [, before = '', flags = '', width = '', precision, conversion = 'd', after = ''] = match;
  const radix = conversion === 'o' ? 8 : conversion === 'x' || conversion === 'X' ? 16 : 10;
  let digits = value.toString(radix);
  if (conversion === 'X') digits = digits.toUpperCase();
  // A precision is the least number of digits; `%.0d` of 0 prints nothing at all.
  if (precision !== undefined) digits = value === 0 && Number(precision || '0') === 0 ? '' : digits.padStart(Number(precision || '0'), '0');
  if (flags.includes('#') && conversion === 'o' && !digits.startsWith('0')) digits = `0${digits}`;
  if (flags.includes('#') && (conversion === 'x' || conversion === 'X') && value !== 0) digits = `0${conversion}${digits}`;
  if (flags.includes('+') && radix === 10) digits = `+${digits}`;
  else if (flags.includes(' ') && radix === 10) digits = ` ${digits}`;
  const padded = flags.includes('-') ? digits.padEnd(Number(width || '0')) : flags.includes('0') && precision === undefined ? digits.padStart(Number(width || '0'), '0') : digits.padStart(Number(width || '0'));
  return `${before}${padded}${after}`.replaceAll('\u0000', '%');
}

/**
 * csplit [-f PREFIX] [-b FORMAT] [-n DIGITS] FILE PATTERN…: one piece before each pattern and
 * one after the last, `{N}` repeating a pattern N more times and `{*}` as often as it matches.
 */
const CSPLIT: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'fbn', long: ['prefix', 'suffix-format', 'digits'] });
    const [input, ...patterns] = parsed.operands;
    if (input !== undefined) context.file('read', input, 'csplit input');
    const prefix = parsed.last('-f', '--prefix') ?? staticWord('xx');
    const formatWord = parsed.last('-b', '--suffix-format');
    const digits = Number(parsed.last('-n', '--digits')?.value ?? '2');
    const format = formatWord === undefined ? (Number.isInteger(digits) && digits > 0 ? `%0${digits}d` : undefined) : formatWord.value;
    let count = 1;
    for (const pattern of patterns) {
      const repeat = /^\{(\d+|\*)\}$/.exec(pattern.value ?? '')?.[1];
      if (pattern.value === undefined || repeat === '*') count = Number.POSITIVE_INFINITY;
      else count += repeat === undefined ? 1 : Number(repeat);
    }
    const listed = count <= MAX_LISTED_PIECES;
    // Not listed: every number the format can spell (10^digits), when it is the default one and few enough.
    const probed = !listed && formatWord === undefined && 10 ** digits <= MAX_PROBED_NAMES ? 10 ** digits : undefined;
    const total = listed ? count : probed;
    let suffixes: string[] | undefined;
    if (format !== undefined && total !== undefined) {
      suffixes = [];
      for (let index = 0; index < total && suffixes !== undefined; index += 1) {
        const suffix = formatSuffix(format, index);
        if (suffix === undefined) suffixes = undefined;
        else suffixes.push(suffix);
      }
    }
    reportOutputs(context, { prefix, suffixes, allWritten: listed, additional: '' }, 'csplit output');
  },
};

export const SPLIT_OUTPUTS: Record<string, CommandConvention> = { split: SPLIT, csplit: CSPLIT };
