import type { Word } from './word-expansion.js';

/**
 * The common getopt conventions, enough to tell a program's operands from its options and the
 * values options take: `-abc` clusters, `-n5` and `-n 5`, `--name=value` and `--name value`,
 * `--` ending the options. A program's handler declares which options take a value; getting
 * that wrong would turn `head -n 5 .env` into a read of `5` and miss `.env`.
 */
export interface OptionSyntax {
  /** Letters of the short options that take a value. */
  short?: string;
  /**
   * Letters of the short options whose value, if any, is the rest of their word (`perl -MJSON`,
   * `git grep -Oless`, `pr -s:`): alone they take nothing, and the next word is never theirs.
   * Listing a flag or such an option in `short` instead would swallow that next word, which may be
   * the very file or code the command acts on (`xxd -b .env`, `perl -F -e CODE`).
   */
  glued?: string;
  /**
   * Letters of short options followed by an optional glued number, after which the cluster goes
   * on (`perl -lne`, `perl -0777`, `od -w16`, `git log -U5`): `-l` alone takes nothing.
   */
  numeric?: string;
  /**
   * Long options (without `--`) that take a value in the next word. One whose value is optional
   * (`--backup[=CONTROL]`, `--color[=WHEN]`) takes it only after `=`, as getopt does, and must not
   * be listed: `cp --backup .env /tmp/x` copies `.env`.
   */
  long?: readonly string[];
  /** Options end at the first operand (POSIX style: `find`, `xargs`, `sudo`, wrappers in general). */
  stopAtOperand?: boolean;
  /**
   * Options that start with a single dash but are words (`-name x`, `-in f`, `-exec`): with
   * `singleDashLong`, `-in` is one option, never a cluster of `-i` and `-n`.
   */
  singleDashLong?: boolean;
}

export interface ParsedOption {
  /** As written, with its dashes and without a value: `-n`, `--lines`. */
  name: string;
  value?: Word;
}

export class ParsedArguments {
  constructor(
    readonly options: readonly ParsedOption[],
    readonly operands: readonly Word[],
  ) {}

  has(...names: string[]): boolean {
    return this.options.some((option) => names.includes(option.name));
  }

  values(...names: string[]): Word[] {
    const values: Word[] = [];
    for (const option of this.options) if (option.value !== undefined && names.includes(option.name)) values.push(option.value);
    return values;
  }

  /** The value of the last of these options given, if any. */
  last(...names: string[]): Word | undefined {
    const values = this.values(...names);
    return values[values.length - 1];
  }
}

/** Parses `words` (the arguments, without the program name). */
export function parseArguments(words: readonly Word[], syntax: OptionSyntax = {}): ParsedArguments {
  const options: ParsedOption[] = [];
  const operands: Word[] = [];
  const takesShort = syntax.short ?? '';
  const takesGlued = syntax.glued ?? '';
  const takesNumber = syntax.numeric ?? '';
  const takesLong = syntax.long ?? [];
  let optionsEnded = false;
  for (let index = 0; index < words.length; index += 1) {
    const word = words[index] as Word;
    const text = word.value;
    if (optionsEnded || text === undefined || text === '-' || !text.startsWith('-')) {
      // A dynamic word is taken as an operand: if it names a file, the file is reported.
      operands.push(word);
      if (syntax.stopAtOperand) optionsEnded = true;
      continue;
    }
    if (text === '--') {
      optionsEnded = true;
      continue;
    }
    const takeNext = (): Word | undefined => {
      const next = words[index + 1];
      if (next !== undefined) index += 1;
      return next;
    };
    if (text.startsWith('--') || syntax.singleDashLong) {
      const equals = text.indexOf('=');
      const name = equals === -1 ? text : text.slice(0, equals);
      const bare = name.replace(/^--?/, '');
      if (equals !== -1) options.push({ name, value: staticWord(text.slice(equals + 1)) });
      else if (takesLong.includes(bare) || (syntax.singleDashLong && !text.startsWith('--') && bare.length === 1 && takesShort.includes(bare))) {
        const value = takeNext();
        options.push(value === undefined ? { name } : { name, value });
      } else options.push({ name });
      continue;
    }
    for (let at = 1; at < text.length; at += 1) {
      const letter = text[at] as string;
      if (takesShort.includes(letter)) {
        const rest = text.slice(at + 1);
        const value = rest !== '' ? staticWord(rest) : takeNext();
        options.push(value === undefined ? { name: `-${letter}` } : { name: `-${letter}`, value });
        break;
      }
      if (takesNumber.includes(letter)) {
        // Digits, hexadecimal after `x` (`perl -0x1F`), or ruby's `-W:category`, which runs to the end.
        const number = /^(?::.*|x[0-9A-Fa-f]+|[0-9]*)/s.exec(text.slice(at + 1))?.[0] ?? '';
        options.push(number === '' ? { name: `-${letter}` } : { name: `-${letter}`, value: staticWord(number) });
        at += number.length;
        continue;
      }
      if (takesGlued.includes(letter)) {
        const rest = text.slice(at + 1);
        options.push(rest === '' ? { name: `-${letter}` } : { name: `-${letter}`, value: staticWord(rest) });
        break;
      }
      options.push({ name: `-${letter}` });
    }
  }
  return new ParsedArguments(options, operands);
}

export function staticWord(value: string): Word {
  return { value, text: value };
}
