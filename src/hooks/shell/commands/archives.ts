import { posix } from 'node:path';
import { parseArguments, staticWord } from '../argument-parser.js';
import type { CommandContext, CommandConvention } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { argumentsOf, reportEach } from './operands.js';

/**
 * Archivers and compressors. Packing reads whole trees and writes the archive; unpacking reads
 * the archive and writes into a directory (which can overwrite anything in it, so the write is
 * recursive unless members are named). Options that run a command (`tar --to-command`,
 * `--checkpoint-action=exec=…`, `-I prog`) are followed as shell code.
 */

type TarMode = 'create' | 'extract' | 'list' | 'append' | 'diff' | 'delete';

const TAR_MODE_LETTERS: Record<string, TarMode> = { c: 'create', x: 'extract', t: 'list', r: 'append', u: 'append', A: 'append', d: 'diff' };
const TAR_LONG_MODES: Record<string, TarMode> = {
  '--create': 'create', '--extract': 'extract', '--get': 'extract', '--list': 'list', '--append': 'append', '--update': 'append',
  '--concatenate': 'append', '--catenate': 'append', '--diff': 'diff', '--compare': 'diff', '--delete': 'delete',
};
/** Short options whose value is the next word, in a bundle like `czf out.tgz` too. (`--backup[=…]` and `--occurrence[=…]` take theirs only after `=`.) */
const TAR_VALUE_LETTERS = 'fCTXbHKLNVgIF';
const TAR_VALUE_LONG = new Set([
  'file', 'directory', 'files-from', 'exclude-from', 'exclude', 'blocking-factor', 'format', 'starting-file', 'tape-length', 'newer', 'after-date', 'newer-mtime', 'label',
  'listed-incremental', 'use-compress-program', 'info-script', 'new-volume-script', 'to-command', 'checkpoint-action', 'transform', 'xform', 'owner', 'group', 'mode', 'mtime',
  'suffix', 'index-file', 'record-size', 'level', 'rsh-command', 'volno-file', 'exclude-tag', 'exclude-tag-under', 'exclude-tag-all', 'strip-components',
]);

const TAR: CommandConvention = {
  handler(context) {
    const words = [...argumentsOf(context)];
    let mode: TarMode | undefined;
    let toStdout = false;
    const archives: Word[] = [];
    const members: { word: Word; directory: Word | undefined }[] = [];
    let directory: Word | undefined;
    const option = (name: string, value: Word | undefined): void => {
      if (value === undefined) return;
      if (name === 'f' || name === 'file') archives.push(value);
      else if (name === 'C' || name === 'directory') directory = value;
      else if (name === 'T' || name === 'files-from' || name === 'X' || name === 'exclude-from' || name === 'g' || name === 'listed-incremental') {
        context.file('read', value, `tar --${name}`);
        // The names in a -T list are files tar reads, known only when it reads the list.
        if (name === 'T' || name === 'files-from') context.dynamic('read', value.value ?? value.text, 'command_substitution', 'tar -T (the files it lists)');
      }
      else if (name === 'I' || name === 'use-compress-program' || name === 'to-command' || name === 'info-script' || name === 'F' || name === 'new-volume-script' || name === 'rsh-command') runCode(context, value, `tar --${name}`);
      else if (name === 'checkpoint-action' && value.value?.startsWith('exec=')) runCode(context, staticWord(value.value.slice(5)), 'tar --checkpoint-action=exec');
    };
    // Old style: `tar czf out.tgz dir`, the first word a bundle of letters without a dash.
    const first = words[0]?.value;
    if (first !== undefined && /^[A-Za-z]+$/.test(first)) {
      words.shift();
      for (const letter of first) {
        mode = TAR_MODE_LETTERS[letter] ?? mode;
        if (letter === 'O') toStdout = true;
        if (TAR_VALUE_LETTERS.includes(letter)) option(letter, words.shift());
      }
    }
    for (let index = 0; index < words.length; index += 1) {
      const word = words[index] as Word;
      const value = word.value;
      if (value === undefined || !value.startsWith('-') || value === '-') {
        members.push({ word, directory });
        continue;
      }
      if (value.startsWith('--')) {
        const equals = value.indexOf('=');
        const name = (equals === -1 ? value : value.slice(0, equals)).slice(2);
        mode = TAR_LONG_MODES[`--${name}`] ?? mode;
        if (name === 'to-stdout') toStdout = true;
        if (equals !== -1) option(name, staticWord(value.slice(equals + 1)));
        else if (TAR_VALUE_LONG.has(name)) option(name, words[++index]);
        continue;
      }
      for (let at = 1; at < value.length; at += 1) {
        const letter = value[at] as string;
        mode = TAR_MODE_LETTERS[letter] ?? mode;
        if (letter === 'O') toStdout = true;
        if (TAR_VALUE_LETTERS.includes(letter)) {
          const rest = value.slice(at + 1);
          option(letter, rest !== '' ? staticWord(rest) : words[++index]);
          break;
        }
      }
    }
    const archiveKinds = mode === 'create' ? (['write'] as const) : mode === 'append' || mode === 'delete' ? (['read', 'write'] as const) : (['read'] as const);
    for (const archive of archives) for (const kind of archiveKinds) context.file(kind, archive, 'tar archive');
    if (mode === 'create' || mode === 'append') {
      for (const member of members) context.file('read', under(member.directory, member.word), 'tar source', { recursive: true });
    } else if ((mode === 'extract' && !toStdout) || mode === 'diff') {
      // `tar xOf a.tar`: the members go to standard output, no file is written.
      const kind = mode === 'extract' ? 'write' : 'read';
      const target = directory ?? staticWord('.');
      if (members.length === 0) context.file(kind, target, mode === 'extract' ? 'tar extraction' : 'tar diff', { recursive: true });
      for (const member of members) context.file(kind, under(target, member.word), mode === 'extract' ? 'tar extraction' : 'tar diff', { recursive: true });
    }
  },
};

/** `path` inside `directory` (a `-C dir` in force), as a word. */
function under(directory: Word | undefined, path: Word): Word {
  if (directory === undefined || path.value?.startsWith('/')) return path;
  if (directory.value === undefined) return { value: undefined, text: `${directory.text}/${path.text}`, reason: directory.reason };
  if (path.value === undefined) return { value: undefined, text: `${directory.value}/${path.text}`, reason: path.reason };
  return staticWord(posix.join(directory.value, path.value));
}

function runCode(context: CommandContext, code: Word, via: string): void {
  if (code.value === undefined) context.dynamic('execute', code.text, code.reason, via);
  else context.script(code.value, via);
}

/** zip: the first operand is the archive (`.zip` added when it has no extension), the rest are read. */
const ZIP: CommandConvention = {
  handler(context) {
    const words: Word[] = [];
    let skipping = false;
    for (const word of argumentsOf(context)) {
      const value = word.value;
      // `-x`/`-i` take a list of patterns that runs until the next option.
      if (value !== undefined && value.startsWith('-')) skipping = ['-x', '-i', '--exclude', '--include'].includes(value);
      else if (skipping) continue;
      words.push(word);
    }
    // `-TT cmd`, `--unzip-command cmd`: the command zip runs to test the archive.
    const rest: Word[] = [];
    for (let index = 0; index < words.length; index += 1) {
      const word = words[index] as Word;
      const value = word.value;
      if (value === '-TT') {
        const command = words[(index += 1)];
        if (command !== undefined) runCode(context, command, 'zip -TT test command');
        continue;
      }
      // zip takes any unique prefix of a long option: `--unzip-comm=…`, `--unz …`.
      if (value !== undefined && /^--unz[a-z-]*$/.test(value)) {
        const command = words[(index += 1)];
        if (command !== undefined) runCode(context, command, 'zip --unzip-command');
        continue;
      }
      const attached = value === undefined ? undefined : /^(?:-TT|--unz[a-z-]*=)(.+)$/s.exec(value)?.[1];
      if (attached !== undefined) runCode(context, staticWord(attached), 'zip -TT test command');
      else rest.push(word);
    }
    const parsed = parseArguments(rest, { short: 'bntOPZs', long: ['temp-path', 'suffixes', 'output-file', 'password', 'compression-method', 'split-size', 'from-date', 'before-date'] });
    const [archive, ...files] = parsed.operands;
    if (archive !== undefined) {
      const named = archive.value !== undefined && posix.extname(archive.value) === '' ? staticWord(`${archive.value}.zip`) : archive;
      context.file('write', named, 'zip archive');
    }
    reportEach(context, 'write', parsed.values('-O', '--output-file'), 'zip --output-file');
    const recursive = parsed.has('-r', '-R', '--recurse-paths', '--recurse-patterns');
    reportEach(context, 'read', files, 'zip source', recursive ? { recursive: true } : {});
    if (parsed.has('-@', '--names-stdin')) context.dynamic('read', 'zip -@ (names from standard input)', 'command_substitution', 'zip -@');
  },
};

/** unzip: reads the archive, writes its members into `-d dir` (or here) unless listing or testing. */
const UNZIP: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context).filter((word, index, all) => {
      const before = all.slice(0, index).map((w) => w.value);
      const exclusion = before.lastIndexOf('-x');
      return !(exclusion !== -1 && !before.slice(exclusion + 1).some((value) => value?.startsWith('-')) && !word.value?.startsWith('-'));
    });
    const parsed = parseArguments(words, { short: 'dP' });
    const [archive, ...members] = parsed.operands;
    if (archive !== undefined) context.file('read', archive, 'unzip archive');
    if (parsed.has('-l', '-t', '-v', '-Z', '-p', '-c', '-z')) return;
    const target = parsed.last('-d') ?? staticWord('.');
    if (members.length === 0) context.file('write', target, 'unzip extraction', { recursive: true });
    for (const member of members) context.file('write', under(target, member), 'unzip extraction', { recursive: true });
  },
};

/** 7-Zip: `7z <command> [switches] archive [files]`; switches are `-oDIR`, `-pPASS`, `-r`, … attached. */
const SEVEN_ZIP: CommandConvention = {
  handler(context) {
    const switches = argumentsOf(context).filter((word) => word.value?.startsWith('-') && word.value !== '-');
    const [command, archive, ...files] = argumentsOf(context).filter((word) => !(word.value?.startsWith('-') && word.value !== '-'));
    if (command === undefined) return;
    const verb = command.value ?? '';
    const output = switches.map((word) => word.value ?? '').find((value) => value.startsWith('-o'));
    const toStdout = switches.some((word) => word.value === '-so');
    if (archive === undefined) return;
    if (verb === 'a' || verb === 'u') {
      context.file('write', archive, '7z archive');
      reportEach(context, 'read', files, '7z source', { recursive: true });
    } else if (verb === 'd' || verb === 'rn') {
      context.file('read', archive, '7z archive');
      context.file('write', archive, '7z archive');
    } else if (verb === 'x' || verb === 'e') {
      context.file('read', archive, '7z archive');
      if (!toStdout) context.file('write', staticWord(output !== undefined ? output.slice(2) || '.' : '.'), '7z extraction', { recursive: true });
    } else if (verb === 'h') {
      reportEach(context, 'read', [archive, ...files], '7z hash');
    } else {
      context.file('read', archive, '7z archive');
    }
  },
};

interface Compressor {
  suffix: string;
  /** zstd and lz4 keep the source unless told `--rm`; the others remove it unless `-k`. */
  keepsSource: boolean;
  decompresses: boolean;
}

/** The suffixes a decompressor strips (`.tgz` becomes `.tar`). */
const COMPRESSED_SUFFIXES: [string, string][] = [
  ['.tgz', '.tar'], ['.taz', '.tar'], ['.tbz2', '.tar'], ['.txz', '.tar'], ['.gz', ''], ['.z', ''], ['.Z', ''], ['.bz2', ''], ['.bz', ''], ['.xz', ''], ['.lzma', ''], ['.zst', ''], ['.lz4', ''], ['.br', ''],
];

function compressor(spec: Compressor): CommandConvention {
  return {
    handler(context) {
      // zstd and lz4 glue their numbers (`-T0`, `-B4`, `-b19`); xz's `-T 4` then reads as a flag and a file named 4,
      // which is harmless, where the other way round a flag would swallow the file. A dictionary (`-D dict`) is a file read.
      const parsed = parseArguments(argumentsOf(context), { short: 'So', numeric: 'bBTML', long: ['suffix', 'output', 'threads', 'memlimit', 'memory', 'format', 'block-size'] });
      const toStdout = parsed.has('-c', '--stdout', '--to-stdout');
      const testing = parsed.has('-t', '--test', '-l', '--list');
      const decompress = spec.decompresses || parsed.has('-d', '--decompress', '--uncompress');
      const keep = spec.keepsSource ? !parsed.has('--rm') : parsed.has('-k', '--keep');
      const options = parsed.has('-r', '--recursive') ? { recursive: true } : {};
      const outputs = parsed.values('-o', '--output');
      reportEach(context, 'write', outputs, `${context.program} output`);
      const suffix = parsed.last('-S', '--suffix')?.value ?? spec.suffix;
      for (const file of parsed.operands) {
        context.file('read', file, `${context.program} argument`, options);
        if (toStdout || testing || file.value === '-') continue;
        if (!keep) context.file('delete', file, `${context.program} replaces its input`, { ...options, followFinal: false });
        if (outputs.length > 0 || file.value === undefined) continue;
        context.file('write', staticWord(decompress ? stripSuffix(file.value, suffix) : file.value + suffix), `${context.program} output`, options);
      }
    },
  };
}

function stripSuffix(name: string, suffix: string): string {
  if (suffix !== '' && name.endsWith(suffix)) return name.slice(0, -suffix.length);
  for (const [compressed, plain] of COMPRESSED_SUFFIXES) if (name.endsWith(compressed)) return name.slice(0, -compressed.length) + plain;
  return name;
}

/**
 * cpio -o|-i|-p: `-o` and `-p` copy the files whose names arrive on standard input (`find . |
 * cpio -o`), which are reads of each name when the input is text known here and dynamic reads
 * otherwise; `-o` writes the archive to `-O`/`-F` (or standard output), `-p` writes the copies
 * under its directory operand. `-i` extracts the members the archive names (absolute names
 * included, unless `--no-absolute-filenames`): a dynamic write, unless it only lists (`-t`) or
 * prints (`--to-stdout`). `--rsh-command` is a program it runs for a remote archive.
 */
const CPIO: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'FOIHEMRCD', long: ['file', 'format', 'pattern-file', 'message', 'owner', 'io-size', 'directory', 'rsh-command', 'block-size'] });
    for (const command of parsed.values('--rsh-command')) context.dynamic('execute', command.value ?? command.text, command.value === undefined ? command.reason : 'interpreter_code', 'cpio --rsh-command');
    reportEach(context, 'read', parsed.values('-E', '--pattern-file'), 'cpio --pattern-file');
    const archive = parsed.values('-F', '--file', '-O', '-I');
    if (parsed.has('-o', '--create', '-p', '--pass-through')) {
      namesFromStdin(context, 'cpio (files named on standard input)');
      if (parsed.has('-o', '--create')) reportEach(context, 'write', archive, 'cpio archive');
      else reportEach(context, 'write', parsed.operands, 'cpio -p destination', { recursive: true });
      return;
    }
    if (parsed.has('-i', '--extract')) {
      reportEach(context, 'read', archive, 'cpio archive');
      if (parsed.has('-t', '--list', '--to-stdout', '--only-verify-crc')) return;
      const directory = parsed.last('-D', '--directory');
      context.dynamic('write', `members of the archive${directory === undefined ? '' : ` under ${directory.value ?? directory.text}`}`, 'unsupported', 'cpio -i');
    }
  },
};

/** File names one per line on standard input: each a read when the text is known here, else a dynamic read. */
function namesFromStdin(context: CommandContext, via: string): void {
  const stdin = context.stdin;
  if (stdin.kind === 'text' && stdin.text !== undefined) {
    for (const name of stdin.text.split('\n')) if (name !== '') context.file('read', staticWord(name), via);
    return;
  }
  context.dynamic('read', stdin.kind === 'file' ? `files listed in ${stdin.word.value ?? stdin.word.text}` : 'file names read from standard input', 'command_substitution', via);
}

export const ARCHIVES: Record<string, CommandConvention> = {
  cpio: CPIO,
  tar: TAR,
  gtar: TAR,
  bsdtar: TAR,
  zip: ZIP,
  unzip: UNZIP,
  '7z': SEVEN_ZIP,
  '7za': SEVEN_ZIP,
  '7zz': SEVEN_ZIP,
  '7zr': SEVEN_ZIP,
  gzip: compressor({ suffix: '.gz', keepsSource: false, decompresses: false }),
  pigz: compressor({ suffix: '.gz', keepsSource: false, decompresses: false }),
  gunzip: compressor({ suffix: '.gz', keepsSource: false, decompresses: true }),
  bzip2: compressor({ suffix: '.bz2', keepsSource: false, decompresses: false }),
  bunzip2: compressor({ suffix: '.bz2', keepsSource: false, decompresses: true }),
  xz: compressor({ suffix: '.xz', keepsSource: false, decompresses: false }),
  unxz: compressor({ suffix: '.xz', keepsSource: false, decompresses: true }),
  lzma: compressor({ suffix: '.lzma', keepsSource: false, decompresses: false }),
  unlzma: compressor({ suffix: '.lzma', keepsSource: false, decompresses: true }),
  zstd: compressor({ suffix: '.zst', keepsSource: true, decompresses: false }),
  unzstd: compressor({ suffix: '.zst', keepsSource: true, decompresses: true }),
  lz4: compressor({ suffix: '.lz4', keepsSource: true, decompresses: false }),
  unlz4: compressor({ suffix: '.lz4', keepsSource: true, decompresses: true }),
  compress: compressor({ suffix: '.Z', keepsSource: false, decompresses: false }),
  uncompress: compressor({ suffix: '.Z', keepsSource: false, decompresses: true }),
  brotli: compressor({ suffix: '.br', keepsSource: true, decompresses: false }),
};
