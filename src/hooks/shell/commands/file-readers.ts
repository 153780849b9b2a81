import { parseArguments, type OptionSyntax } from '../argument-parser.js';
import type { CommandContext, CommandConvention } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { argumentsOf, reportEach } from './operands.js';

/**
 * Programs that read the files named by their operands and print something derived from them:
 * cat and its relatives, pagers, checksums, encoders, formatters. Each is described by which of
 * its options take a value (so `head -n 5 .env` reads `.env`, not `5`), which option values are
 * files, and the odd operand that is an output file (`xxd in out`, `uniq in out`).
 */
interface ReaderSpec {
  syntax?: OptionSyntax;
  /** Options whose value is a file the program reads. */
  readOptions?: readonly string[];
  /** Options whose value is a file the program writes. */
  writeOptions?: readonly string[];
  /** Options whose value is a file listing the files to read (`--files0-from`): those are known only when it runs. */
  listOptions?: readonly string[];
  /** Operands from this position on are written, not read (`xxd in out`). */
  outputFrom?: number;
  /** Operands before this position are not files (jq's filter), unless one of `unlessOptions` supplies them. */
  leadingNonFiles?: { count: number; unlessOptions: readonly string[] };
  /** Options that make the operands recursive reads (`diff -r`). */
  recursiveOptions?: readonly string[];
  /** Words starting with `+` are commands or offsets, not files (`less +F`, `tail +5`). */
  plusWordsAreOptions?: boolean;
}

function reader(spec: ReaderSpec = {}): CommandConvention {
  return {
    handler(context: CommandContext) {
      const words = spec.plusWordsAreOptions ? argumentsOf(context).filter((word) => !word.value?.startsWith('+')) : argumentsOf(context);
      const parsed = parseArguments(words, spec.syntax);
      const via = `${context.program} argument`;
      for (const option of spec.readOptions ?? []) reportEach(context, 'read', parsed.values(option), `${context.program} ${option}`);
      for (const option of spec.writeOptions ?? []) reportEach(context, 'write', parsed.values(option), `${context.program} ${option}`);
      for (const option of spec.listOptions ?? []) {
        for (const list of parsed.values(option)) {
          context.file('read', list, `${context.program} ${option}`);
          context.dynamic('read', `files listed in ${list.value ?? list.text}`, 'unsupported', `${context.program} ${option}`);
        }
      }
      let operands = parsed.operands;
      if (spec.leadingNonFiles && !parsed.has(...spec.leadingNonFiles.unlessOptions)) operands = operands.slice(spec.leadingNonFiles.count);
      const recursive = spec.recursiveOptions !== undefined && parsed.has(...spec.recursiveOptions);
      operands.forEach((word, index) => {
        if (spec.outputFrom !== undefined && index >= spec.outputFrom) context.file('write', word, `${context.program} output`);
        else context.file('read', word, via, recursive ? { recursive: true } : {});
      });
    },
  };
}

const PLAIN = reader();

/**
 * jq: the filter is the first operand unless `-f`/`--from-file` names a file holding it; the
 * other operands are input files, except after `--args`/`--jsonargs`, where they are values.
 * `--arg`/`--argjson NAME VALUE` take two words, and `--rawfile`/`--slurpfile NAME FILE` read
 * FILE into a variable (`jq -n --rawfile x .env '$x'` prints it).
 */
const JQ: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context);
    let filterGiven = false;
    let filterSeen = false;
    let valuesOnly = false;
    let optionsEnded = false;
    for (let index = 0; index < words.length; index += 1) {
      const word = words[index] as Word;
      const value = word.value;
      if (optionsEnded || value === undefined || value === '-' || !value.startsWith('-')) {
        if (!filterGiven && !filterSeen) filterSeen = true;
        else if (!valuesOnly) context.file('read', word, 'jq argument');
        continue;
      }
      if (value === '--') optionsEnded = true;
      else if (value === '--args' || value === '--jsonargs') valuesOnly = true;
      else if (value === '--arg' || value === '--argjson') index += 2;
      else if (value === '--rawfile' || value === '--slurpfile') {
        const file = words[index + 2];
        if (file !== undefined) context.file('read', file, `jq ${value}`);
        index += 2;
      } else if (value === '--from-file' || /^-[a-zA-Z]*f[a-zA-Z]*$/.test(value)) {
        const file = words[index + 1];
        if (file !== undefined) context.file('read', file, `jq ${value}`);
        filterGiven = true;
        index += 1;
      } else if (value === '--indent' || value === '-L' || value === '--library-path') index += 1;
    }
  },
};

const YQ_READER = reader({ syntax: { short: 'Iop', long: ['indent', 'output-format', 'input-format', 'from-file'] }, leadingNonFiles: { count: 1, unlessOptions: ['--from-file'] }, readOptions: ['--from-file'] });

/** yq: like jq, and its `load`, `load_str`, `load_xml`, … operators read any file the expression names. */
const YQ: CommandConvention = {
  handler(context) {
    YQ_READER.handler(context);
    for (const word of argumentsOf(context)) {
      if (word.value !== undefined && /\bload(?:_\w+)?\s*\(/.test(word.value)) context.dynamic('read', word.value, 'interpreter_code', 'yq load operator');
    }
  },
};

const SHUF_READER = reader({ syntax: { short: 'nio', long: ['head-count', 'input-range', 'output', 'random-source'] }, readOptions: ['--random-source'], writeOptions: ['-o', '--output'] });

/**
 * shuf [-n N] [-o OUT] [--random-source F] [FILE]: reads FILE, writes OUT (`shuf -o svc.yml x`);
 * with `-e` its operands are the lines themselves, with `-i LO-HI` there is no input file.
 */
const SHUF: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'nio', long: ['head-count', 'input-range', 'output', 'random-source'] });
    if (!parsed.has('-e', '--echo', '-i', '--input-range')) {
      SHUF_READER.handler(context);
      return;
    }
    reportEach(context, 'write', parsed.values('-o', '--output'), 'shuf -o');
    reportEach(context, 'read', parsed.values('--random-source'), 'shuf --random-source');
  },
};

export const FILE_READERS: Record<string, CommandConvention> = {
  cat: reader({ syntax: {} }),
  tac: reader({ syntax: { short: 's', long: ['separator'] } }),
  nl: reader({ syntax: { short: 'bdfhilnsvw', long: ['body-numbering', 'section-delimiter', 'footer-numbering', 'header-numbering', 'line-increment', 'join-blank-lines', 'number-format', 'number-separator', 'starting-line-number', 'number-width'] } }),
  less: reader({ syntax: { short: 'bhjkoOpPtTxyz#', long: ['log-file', 'LOG-FILE', 'lesskey-file', 'pattern', 'prompt', 'tag', 'tag-file', 'tabs', 'window', 'shift', 'max-back-scroll', 'max-forw-scroll', 'jump-target'] }, readOptions: ['-k', '--lesskey-file', '-T', '--tag-file'], writeOptions: ['-o', '-O', '--log-file', '--LOG-FILE'], plusWordsAreOptions: true }),
  more: reader({ syntax: { short: 'n', long: ['lines'] }, plusWordsAreOptions: true }),
  most: reader({ plusWordsAreOptions: true }),
  head: reader({ syntax: { short: 'nc', long: ['lines', 'bytes'] } }),
  tail: reader({ syntax: { short: 'ncs', long: ['lines', 'bytes', 'sleep-interval', 'pid', 'max-unchanged-stats'] } }),
  wc: reader({ syntax: { long: ['files0-from'] }, listOptions: ['--files0-from'] }),
  xxd: reader({ syntax: { short: 'cglsonR', long: ['cols', 'groupsize', 'len', 'seek', 'name'] }, outputFrom: 1 }),
  hexdump: reader({ syntax: { short: 'nseEf' }, readOptions: ['-f'] }),
  hd: reader({ syntax: { short: 'nseEf' }, readOptions: ['-f'] }),
  od: reader({ syntax: { short: 'AjNtS', numeric: 'w', long: ['address-radix', 'skip-bytes', 'read-bytes', 'format', 'endian'] } }),
  strings: reader({ syntax: { short: 'ntTesU', long: ['bytes', 'radix', 'target', 'encoding', 'output-separator', 'unicode'] } }),
  base64: reader({ syntax: { short: 'wiob', long: ['wrap', 'input', 'output', 'break'] }, readOptions: ['-i', '--input'], writeOptions: ['-o', '--output'] }),
  base32: reader({ syntax: { short: 'w', long: ['wrap'] } }),
  basenc: reader({ syntax: { short: 'w', long: ['wrap'] } }),
  uuencode: PLAIN,
  rev: PLAIN,
  fold: reader({ syntax: { short: 'w', long: ['width'] } }),
  // GNU fmt's -p takes a prefix, BSD fmt's is a flag: taken as a flag, the prefix is at worst reported as a file.
  fmt: reader({ syntax: { short: 'wg', long: ['width', 'prefix', 'goal'] } }),
  cut: reader({ syntax: { short: 'bcdf', long: ['bytes', 'characters', 'delimiter', 'fields', 'output-delimiter'] } }),
  paste: reader({ syntax: { short: 'd', long: ['delimiters'] } }),
  uniq: reader({ syntax: { short: 'fsw', glued: 'D', long: ['skip-fields', 'skip-chars', 'check-chars'] }, outputFrom: 1 }),
  comm: reader({ syntax: { long: ['output-delimiter'] } }),
  join: reader({ syntax: { short: '12jteoav', long: [] } }),
  cmp: reader({ syntax: { short: 'inI', long: ['ignore-initial', 'bytes'] } }),
  expand: reader({ syntax: { short: 't', long: ['tabs'] } }),
  unexpand: reader({ syntax: { short: 't', long: ['tabs'] } }),
  pr: reader({ syntax: { short: 'DhlNowW', glued: 'einsS', long: ['columns', 'header', 'length', 'width', 'page-width', 'indent', 'first-line-number', 'date-format'] } }),
  column: reader({ syntax: { short: 'csoNRHWElC', long: ['output-width', 'separator', 'output-separator', 'table-columns', 'table-right', 'table-hide', 'table-wrap', 'table-name'] } }),
  iconv: reader({ syntax: { short: 'fto', long: ['from-code', 'to-code', 'output'] }, writeOptions: ['-o', '--output'] }),
  file: reader({ syntax: { short: 'mfFeP', long: ['magic-file', 'files-from', 'separator', 'exclude', 'parameter'] }, readOptions: ['-m', '--magic-file'], listOptions: ['-f', '--files-from'] }),
  sum: PLAIN,
  cksum: reader({ syntax: { short: 'al', long: ['algorithm', 'length'] } }),
  md5sum: PLAIN,
  md5: reader({ syntax: { short: 's' } }),
  sha1sum: PLAIN,
  sha224sum: PLAIN,
  sha256sum: PLAIN,
  sha384sum: PLAIN,
  sha512sum: PLAIN,
  b2sum: reader({ syntax: { short: 'l', long: ['length'] } }),
  shasum: reader({ syntax: { short: 'a', long: ['algorithm'] } }),
  jq: JQ,
  yq: YQ,
  bat: reader({ syntax: { short: 'lHrm', long: ['language', 'highlight-line', 'line-range', 'map-syntax', 'style', 'theme', 'tabs', 'wrap', 'terminal-width', 'color', 'italic-text', 'decorations', 'paging', 'pager', 'file-name'] } }),
  batcat: reader({ syntax: { short: 'lHrm', long: ['language', 'highlight-line', 'line-range', 'map-syntax', 'style', 'theme', 'tabs', 'wrap', 'terminal-width', 'color', 'pager', 'file-name'] } }),
  diff: reader({
    syntax: { short: 'xXIFLCUWD', long: ['exclude', 'exclude-from', 'ignore-matching-lines', 'show-function-line', 'label', 'width', 'from-file', 'to-file', 'line-format', 'old-line-format', 'new-line-format', 'unchanged-line-format', 'changed-group-format', 'new-group-format', 'old-group-format', 'unchanged-group-format', 'horizon-lines', 'tabsize', 'palette', 'ifdef', 'starting-file'] },
    readOptions: ['-X', '--exclude-from', '--from-file', '--to-file'],
    recursiveOptions: ['-r', '--recursive'],
  }),
  diff3: reader({ syntax: { short: 'L', long: ['label', 'diff-program'] } }),
  sdiff: reader({ syntax: { short: 'owI', long: ['output', 'width', 'ignore-matching-lines', 'diff-program', 'tabsize'] }, writeOptions: ['-o', '--output'] }),
  colordiff: reader({ syntax: { short: 'xXIFLCU', long: ['exclude', 'exclude-from', 'label'] }, recursiveOptions: ['-r', '--recursive'] }),
  zcat: PLAIN,
  gzcat: PLAIN,
  zless: reader({ plusWordsAreOptions: true }),
  zmore: reader({ plusWordsAreOptions: true }),
  bzcat: PLAIN,
  xzcat: PLAIN,
  lzcat: PLAIN,
  zstdcat: PLAIN,
  lz4cat: PLAIN,
  look: reader({ syntax: { short: 't' } }),
  tsort: PLAIN,
  ptx: PLAIN,
  shuf: SHUF,
};

const SORT_SYNTAX: OptionSyntax = { short: 'ktSTo', long: ['key', 'field-separator', 'buffer-size', 'temporary-directory', 'output', 'parallel', 'files0-from', 'random-source', 'batch-size', 'compress-program', 'sort'] };

const SORT_READER = reader({ syntax: SORT_SYNTAX, readOptions: ['--random-source'], listOptions: ['--files0-from'], writeOptions: ['-o', '--output'] });

/**
 * sort reads its operands and writes `-o file`. `--random-source` is a read too, and
 * `--files0-from` a read of the list and of the files it names. `--compress-program PROG` is a
 * program sort runs on its temporary files, with their lines on its standard input: a shell or an
 * interpreter there runs the data as code (`sort -S1 --compress-program=sh data`).
 */
export const SORT: CommandConvention = {
  handler(context) {
    SORT_READER.handler(context);
    for (const program of parseArguments(argumentsOf(context), SORT_SYNTAX).values('--compress-program')) {
      // A name without a slash is looked up in PATH; a path is a file run.
      if (program.value === undefined || program.value.includes('/')) context.file('execute', program, 'sort --compress-program', { runner: 'kernel' });
      if (program.value === undefined || /^(?:sh|bash|dash|zsh|ksh|busybox|python[\d.]*|perl[\d.]*|ruby[\d.]*|node|php[\d.]*)$/.test(program.value.replace(/^.*\//, ''))) {
        context.dynamic('execute', program.value ?? program.text, 'interpreter_code', 'sort --compress-program (it reads the data as code)');
      }
    }
  },
};
