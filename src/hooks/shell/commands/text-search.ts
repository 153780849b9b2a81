import { parseArguments, staticWord } from '../argument-parser.js';
import type { CommandContext, CommandConvention } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { argumentsOf, reportEach } from './operands.js';

/**
 * Searchers and stream editors: the first operand is a pattern or a program, not a file,
 * unless the pattern came from `-e`/`-f`. Recursive searches read whole trees; with no path,
 * the tree is the working directory.
 */

const GREP_SYNTAX = {
  short: 'efmABCdD',
  long: ['regexp', 'file', 'max-count', 'after-context', 'before-context', 'context', 'directories', 'devices', 'include', 'exclude', 'exclude-from', 'exclude-dir', 'label', 'binary-files', 'group-separator'],
};

function grepHandler(context: CommandContext): void {
  const parsed = parseArguments(argumentsOf(context), GREP_SYNTAX);
  reportEach(context, 'read', parsed.values('-f', '--file', '--exclude-from'), `${context.program} pattern file`);
  const patternGiven = parsed.has('-e', '--regexp', '-f', '--file');
  const paths = patternGiven ? parsed.operands : parsed.operands.slice(1);
  const recursive =
    parsed.has('-r', '-R', '--recursive', '--dereference-recursive') ||
    parsed.values('-d', '--directories').some((value) => value.value === 'recurse') ||
    context.program === 'rgrep';
  if (recursive && paths.length === 0) {
    context.file('read', staticWord('.'), `${context.program} -r (working directory)`, { recursive: true });
    return;
  }
  reportEach(context, 'read', paths, `${context.program} argument`, recursive ? { recursive: true } : {});
}

const RG_SYNTAX = {
  short: 'efgtTmABCjMdErE',
  long: [
    'regexp', 'file', 'glob', 'iglob', 'type', 'type-not', 'type-add', 'type-clear', 'max-count', 'after-context', 'before-context', 'context', 'threads',
    'max-columns', 'max-depth', 'maxdepth', 'encoding', 'replace', 'ignore-file', 'pre', 'pre-glob', 'sort', 'sortr', 'path-separator', 'colors', 'color',
    'context-separator', 'field-match-separator', 'field-context-separator', 'max-filesize', 'engine', 'dfa-size-limit', 'regex-size-limit', 'hostname-bin', 'hyperlink-format',
  ],
};

/** ripgrep: recursive by default; `--files` lists names instead of searching. */
function ripgrepHandler(context: CommandContext): void {
  const parsed = parseArguments(argumentsOf(context), RG_SYNTAX);
  reportEach(context, 'read', parsed.values('-f', '--file', '--ignore-file'), 'rg pattern file');
  // `--pre cmd` runs a program on every file searched.
  for (const pre of parsed.values('--pre')) context.file('execute', pre, 'rg --pre');
  // `--files` lists the names it would search, `--type-list` the file types: no content is read.
  if (parsed.has('--files', '--type-list')) return;
  const patternGiven = parsed.has('-e', '--regexp', '-f', '--file');
  const paths = patternGiven ? parsed.operands : parsed.operands.slice(1);
  // Unless told otherwise, ripgrep leaves hidden and gitignored files out of the trees it walks.
  const walksEverything = parsed.has('--hidden', '-.', '-u', '-uu', '-uuu', '--unrestricted', '--no-ignore', '--no-ignore-vcs', '--no-ignore-dot', '--no-ignore-parent', '-g', '--glob', '--iglob', '--follow', '-L', '--ignore-file');
  const tree = { recursive: true, ...(!walksEverything && { skips: 'ripgrep' as const }) };
  if (paths.length === 0) context.file('read', staticWord('.'), `${context.program} (working directory)`, tree);
  else reportEach(context, 'read', paths, `${context.program} argument`, tree);
}

// ag's long --after, --before and --context take their number only after `=`.
const AG_SYNTAX = { short: 'GmABCpg', long: ['file-search-regex', 'ignore', 'ignore-dir', 'max-count', 'depth', 'path-to-ignore', 'pager'] };

/** The silver searcher and ack: recursive searchers whose first operand is the pattern. */
function agHandler(context: CommandContext): void {
  const parsed = parseArguments(argumentsOf(context), AG_SYNTAX);
  reportEach(context, 'read', parsed.values('-p', '--path-to-ignore'), `${context.program} ignore file`);
  // `--pager COMMAND`: ag and ack open their output with it through a shell.
  for (const pager of parsed.values('--pager')) {
    if (pager.value === undefined) context.dynamic('execute', pager.text, pager.reason, `${context.program} --pager`);
    else context.script(pager.value, `${context.program} --pager`);
  }
  // `-g PATTERN` matches file names only: a listing, no content read.
  if (parsed.has('-g')) return;
  const listing = parsed.has('-f', '--files');
  const paths = listing ? parsed.operands : parsed.operands.slice(1);
  if (paths.length === 0) context.file('read', staticWord('.'), `${context.program} (working directory)`, { recursive: true });
  else reportEach(context, 'read', paths, `${context.program} argument`, { recursive: true });
}

/**
 * sed: operands are read, and with `-i` written back. Script commands that open files are
 * reported too (`r file`, `w file`, `s///w file`), and `e` (run a command) makes it dynamic code.
 */
function sedHandler(context: CommandContext): void {
  const words = [...argumentsOf(context)];
  // BSD sed: `-i ''` is an in-place edit with an empty backup suffix, not a script.
  const inPlaceAt = words.findIndex((word) => word.value === '-i');
  if (inPlaceAt !== -1 && words[inPlaceAt + 1]?.value === '') words.splice(inPlaceAt + 1, 1);
  // GNU sed's -l takes a line length, BSD sed's is a flag: taken as a flag, a length is at worst reported as a script.
  const parsed = parseArguments(words, { short: 'ef', long: ['expression', 'file', 'line-length'] });
  const scriptFiles = parsed.values('-f', '--file');
  reportEach(context, 'read', scriptFiles, 'sed script file');
  // A script file is sed code (`r .env`, `e cmd`): run, like any interpreter's script, so one this line writes is code it wrote.
  reportEach(context, 'execute', scriptFiles, 'sed script file');
  const scripts = parsed.values('-e', '--expression');
  const explicit = scripts.length > 0 || scriptFiles.length > 0;
  if (!explicit && parsed.operands[0] !== undefined) scripts.push(parsed.operands[0]);
  const files = explicit ? parsed.operands : parsed.operands.slice(1);
  const inPlace = parsed.has('-i', '--in-place');
  for (const script of scripts) sedScriptFiles(context, script);
  for (const file of files) {
    context.file('read', file, 'sed argument');
    if (inPlace) context.file('write', file, 'sed -i');
  }
}

/** `r file`/`R file` read, `w file`/`W file` and the `w` flag of `s` write, `e` runs shell code. */
function sedScriptFiles(context: CommandContext, script: Word): void {
  if (script.value === undefined) {
    context.dynamic('execute', script.text, script.reason, 'sed script');
    return;
  }
  const effects = parseSedScript(script.value);
  if (effects === undefined) {
    // What a script this parser does not follow does (any command may be `r`, `w` or `e`) is unknown.
    context.dynamic('execute', script.value, 'interpreter_code', 'sed script not fully parsed');
    return;
  }
  for (const effect of effects) {
    if (effect.kind === 'code') {
      if (effect.code === undefined) context.dynamic('execute', script.value, 'interpreter_code', `sed ${effect.via}`);
      else context.script(effect.code, `sed ${effect.via}`);
    } else context.file(effect.kind, staticWord(effect.path), `sed ${effect.via}`);
  }
}

type SedEffect = { kind: 'read' | 'write'; path: string; via: string } | { kind: 'code'; code: string | undefined; via: string };

/** Commands without an argument, or only an optional number (`l 5`, `q 1`). */
const SED_SIMPLE_COMMANDS = new Set(['=', 'd', 'D', 'g', 'G', 'h', 'H', 'l', 'L', 'n', 'N', 'p', 'P', 'x', 'z', 'F', 'q', 'Q', '}', '{']);

/**
 * What a GNU/POSIX sed script does beyond editing its input: the file its `r`, `R`, `w`, `W`
 * commands and `s///w` flags name, and the shell code its `e` commands and `s///e` flags run.
 * Undefined when the script holds anything this parser does not recognize: bash would still
 * run it, so the caller treats it as unknown code. Addresses: `N`, `$`, `first~step`, `/re/`
 * and `\%re%` with `I`/`M` flags, and the second address forms `+N`, `~N`. Where GNU sed's
 * reading is ambiguous (does a label end at `;`?) the reading that finds more commands is taken.
 */
export function parseSedScript(script: string): SedEffect[] | undefined {
  const effects: SedEffect[] = [];
  let at = 0;
  const length = script.length;
  const skip = (pattern: RegExp): string => {
    pattern.lastIndex = at;
    const match = pattern.exec(script);
    if (match === null || match.index !== at) return '';
    at += match[0].length;
    return match[0];
  };
  const restOfLine = (): string => {
    const end = script.indexOf('\n', at);
    const text = script.slice(at, end === -1 ? length : end);
    at = end === -1 ? length : end;
    return text;
  };
  /** `/re/` or `\cREc`: past the closing delimiter; false when it never closes. */
  const regex = (delimiter: string): boolean => {
    for (; at < length; at += 1) {
      const char = script[at];
      if (char === '\\') at += 1;
      else if (char === delimiter) {
        at += 1;
        return true;
      } else if (char === '\n' && delimiter !== '\n') return false;
    }
    return false;
  };
  const address = (second: boolean): boolean => {
    const char = script[at];
    if (char === undefined) return true;
    if (/\d/.test(char)) {
      skip(/\d+(?:\s*~\s*\d+)?/y);
      return true;
    }
    if (char === '$') {
      at += 1;
      return true;
    }
    if (second && (char === '+' || char === '~')) {
      at += 1;
      return skip(/\d+/y) !== '';
    }
    if (char === '/' || char === '\\') {
      const delimiter = char === '/' ? '/' : script[at + 1];
      if (delimiter === undefined || delimiter === '\n' || delimiter === '\\') return false;
      at += char === '/' ? 1 : 2;
      if (!regex(delimiter)) return false;
      skip(/[IM]*/y);
    }
    return true;
  };
  while (at < length) {
    skip(/[\s;]+/y);
    if (at >= length) break;
    if (script[at] === '#') {
      restOfLine();
      continue;
    }
    if (!address(false)) return undefined;
    skip(/[ \t]*/y);
    if (script[at] === ',') {
      at += 1;
      skip(/[ \t]*/y);
      if (!address(true)) return undefined;
    }
    skip(/[ \t!]*/y);
    const command = script[at];
    if (command === undefined) return undefined;
    at += 1;
    if (SED_SIMPLE_COMMANDS.has(command)) {
      skip(/[ \t]*\d*/y);
      continue;
    }
    switch (command) {
      case 'a':
      case 'i':
      case 'c':
        // Text up to the end of the line, continued past lines that end with a backslash.
        while (at < length) {
          const text = restOfLine();
          if (!text.endsWith('\\')) break;
          at += 1;
        }
        continue;
      case ':':
      case 'b':
      case 't':
      case 'T':
      case 'v':
        skip(/[^;\n]*/y);
        continue;
      case 'r':
      case 'R':
      case 'w':
      case 'W': {
        const path = restOfLine().trim();
        if (path === '') return undefined;
        effects.push({ kind: command === 'r' || command === 'R' ? 'read' : 'write', path, via: `${command} command` });
        continue;
      }
      case 'e': {
        const code = restOfLine().trim();
        effects.push({ kind: 'code', code: code === '' ? undefined : code, via: 'e command' });
        continue;
      }
      case 's':
      case 'y': {
        const delimiter = script[at];
        if (delimiter === undefined || delimiter === '\n' || delimiter === '\\') return undefined;
        at += 1;
        if (!regex(delimiter) || !regex(delimiter)) return undefined;
        if (command === 'y') continue;
        const flags = skip(/[gpiIme0-9]*/y);
        if (flags.includes('e')) effects.push({ kind: 'code', code: undefined, via: 's///e' });
        if (script[at] === 'w') {
          at += 1;
          const path = restOfLine().trim();
          if (path === '') return undefined;
          effects.push({ kind: 'write', path, via: 's///w' });
        }
        continue;
      }
      default:
        return undefined;
    }
  }
  return effects;
}

/**
 * awk: the program is the first operand (or `-f file`); the other operands are files read,
 * except `var=value` assignments. A program that can run commands or open files on its own
 * (`system()`, `getline`, pipes, `print > file`) is dynamic interpreter code.
 */
function awkHandler(context: CommandContext): void {
  const parsed = parseArguments(argumentsOf(context), { short: 'FvfEiWle', long: ['field-separator', 'assign', 'file', 'exec', 'include', 'load', 'source'] });
  const programFiles = [...parsed.values('-f', '--file', '-E', '--exec'), ...parsed.values('-i', '--include').filter((library) => library.value !== 'inplace' && library.value !== 'inplace.awk')];
  reportEach(context, 'read', programFiles, 'awk program file');
  // A program file is awk code: run, like any interpreter's script, so one this line writes is code it wrote.
  reportEach(context, 'execute', programFiles, 'awk program file');
  // gawk -l/--load loads a shared library extension: native code.
  reportEach(context, 'execute', parsed.values('-l', '--load'), 'awk extension');
  // gawk's -e is --source: program text.
  const programs = parsed.values('--source', '-e');
  const given = programFiles.length > 0 || programs.length > 0;
  if (!given && parsed.operands[0] !== undefined) programs.push(parsed.operands[0]);
  const files = given ? parsed.operands : parsed.operands.slice(1);
  for (const program of programs) {
    if (program.value === undefined) context.dynamic('execute', program.text, program.reason, 'awk program');
    else if (AWK_SIDE_EFFECTS.test(program.value)) context.dynamic('execute', program.value, 'interpreter_code', 'awk program');
  }
  // gawk's inplace extension rewrites its operands.
  const inPlace = parsed.values('-i', '--include').some((library) => library.value === 'inplace' || library.value === 'inplace.awk');
  for (const file of files) {
    if (file.value !== undefined && /^[A-Za-z_][A-Za-z0-9_]*=/.test(file.value)) continue;
    context.file('read', file, 'awk argument');
    if (inPlace) context.file('write', file, 'awk -i inplace');
  }
}

/**
 * What lets an awk program open files or run commands the operands do not show: `system()`,
 * `getline` (from a file or a command), pipes and `print > file`, gawk's `@include`/`@load`
 * and extension functions, and ARGV/ARGC, through which the program picks its own input files
 * (`BEGIN{ARGV[ARGC++]=".env"}`).
 */
const AWK_SIDE_EFFECTS = /\bsystem\s*\(|\bgetline\b|(?<!\|)\|(?!\|)|\bprintf?\b[^;{}]*>|\bARG[VC]\b|@\s*(?:include|load|namespace)\b|\b(?:readfile|writea|reada|fork|execl?)\s*\(/;

export const TEXT_SEARCH: Record<string, CommandConvention> = {
  grep: { handler: grepHandler },
  egrep: { handler: grepHandler },
  fgrep: { handler: grepHandler },
  rgrep: { handler: grepHandler },
  zgrep: { handler: grepHandler },
  zegrep: { handler: grepHandler },
  zfgrep: { handler: grepHandler },
  bzgrep: { handler: grepHandler },
  xzgrep: { handler: grepHandler },
  rg: { handler: ripgrepHandler },
  ag: { handler: agHandler },
  ack: { handler: agHandler },
  sed: { handler: sedHandler },
  gsed: { handler: sedHandler },
  awk: { handler: awkHandler },
  gawk: { handler: awkHandler },
  mawk: { handler: awkHandler },
  nawk: { handler: awkHandler },
};
