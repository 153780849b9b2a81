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

/** ripgrep: recursive by default; `--files` lists instead of searching, so there is no pattern. */
function ripgrepHandler(context: CommandContext): void {
  const parsed = parseArguments(argumentsOf(context), RG_SYNTAX);
  reportEach(context, 'read', parsed.values('-f', '--file', '--ignore-file'), 'rg pattern file');
  // `--pre cmd` runs a program on every file searched.
  for (const pre of parsed.values('--pre')) context.file('execute', pre, 'rg --pre');
  const patternGiven = parsed.has('-e', '--regexp', '-f', '--file', '--files', '--type-list');
  const paths = patternGiven ? parsed.operands : parsed.operands.slice(1);
  if (parsed.has('--type-list')) return;
  if (paths.length === 0) context.file('read', staticWord('.'), `${context.program} (working directory)`, { recursive: true });
  else reportEach(context, 'read', paths, `${context.program} argument`, { recursive: true });
}

const AG_SYNTAX = { short: 'GmABCpg', long: ['file-search-regex', 'ignore', 'ignore-dir', 'max-count', 'after', 'before', 'context', 'depth', 'path-to-ignore', 'pager'] };

/** The silver searcher and ack: recursive searchers whose first operand is the pattern. */
function agHandler(context: CommandContext): void {
  const parsed = parseArguments(argumentsOf(context), AG_SYNTAX);
  reportEach(context, 'read', parsed.values('-p', '--path-to-ignore'), `${context.program} ignore file`);
  const listing = parsed.has('-f', '--files', '-g');
  const paths = listing && !parsed.has('-g') ? parsed.operands : parsed.operands.slice(1);
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
  const parsed = parseArguments(words, { short: 'efl', long: ['expression', 'file', 'line-length'] });
  const scriptFiles = parsed.values('-f', '--file');
  reportEach(context, 'read', scriptFiles, 'sed script file');
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
  const address = String.raw`(?:\d+|\$|/(?:[^/\\]|\\.)*/I?)(?:\s*,\s*(?:\d+|\$|/(?:[^/\\]|\\.)*/I?|[+~]\d+))?\s*!?\s*`;
  for (const raw of script.value.split(/[\n;]/)) {
    const command = raw.trim().replace(/^[{}]\s*/, '').replace(new RegExp(`^${address}`), '').replace(/^[{]\s*/, '');
    const fileCommand = /^([rRwW])\s*(\S.*)$/.exec(command);
    if (fileCommand) {
      const [, letter = '', path = ''] = fileCommand;
      context.file(letter === 'r' || letter === 'R' ? 'read' : 'write', staticWord(path.trim()), `sed ${letter} command`);
      continue;
    }
    const substitute = /^s(.)(?:(?!\1)[^\\]|\\.)*\1(?:(?!\1)[^\\]|\\.)*\1([a-zA-Z0-9]*)(?:\s*(\S.*))?$/.exec(command);
    if (substitute) {
      const [, , flags = '', rest] = substitute;
      if (flags.includes('w') && rest !== undefined) context.file('write', staticWord(rest.trim()), 'sed s///w');
      if (flags.includes('e')) context.dynamic('execute', script.value, 'interpreter_code', 'sed s///e');
      continue;
    }
    if (/^e(\s|$)/.test(command)) context.dynamic('execute', script.value, 'interpreter_code', 'sed e command');
  }
}

/**
 * awk: the program is the first operand (or `-f file`); the other operands are files read,
 * except `var=value` assignments. A program that can run commands or open files on its own
 * (`system()`, `getline`, pipes, `print > file`) is dynamic interpreter code.
 */
function awkHandler(context: CommandContext): void {
  const parsed = parseArguments(argumentsOf(context), { short: 'FvfEiWl', long: ['field-separator', 'assign', 'file', 'exec', 'include', 'load', 'source'] });
  const programFiles = [...parsed.values('-f', '--file', '-E', '--exec'), ...parsed.values('-i', '--include').filter((library) => library.value !== 'inplace' && library.value !== 'inplace.awk')];
  reportEach(context, 'read', programFiles, 'awk program file');
  const programs = parsed.values('--source');
  if (programFiles.length === 0 && parsed.operands[0] !== undefined) programs.push(parsed.operands[0]);
  const files = programFiles.length === 0 && parsed.values('--source').length === 0 ? parsed.operands.slice(1) : parsed.operands;
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

const AWK_SIDE_EFFECTS = /\bsystem\s*\(|\bgetline\b|\|&|\|\s*"|"\s*\||\bprintf?\b[^;{}]*>/;

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
