import { posix } from 'node:path';
import { staticWord } from '../argument-parser.js';
import type { CommandContext, CommandConvention } from '../command-context.js';
import { AnalysisLimitReached, UnanalyzableCommand } from '../operation-log.js';
import type { Word } from '../word-expansion.js';
import { interpreterName } from './interpreters.js';
import { argumentsOf, isUrl, reportPathLikeArguments, responseFile } from './operands.js';
import { followStandardInput } from './include-processors.js';
import { conventionFor } from './registry.js';

/**
 * A program without conventions here (npm, make, a project's own tool, …): its arguments that
 * look like paths are taken as files it reads — a word containing `/`, starting with `.`, or
 * naming something that exists — and so are `--option=value` values that do, `@path` words
 * (a response file, for the many tools that expand them) and `file:` URLs. Arguments known
 * only at run time are dynamic reads: they could name anything. This over-reports (a directory
 * given to `make -C` is "read"), which costs nothing unless the path is protected, and it is
 * blind to writes, which the programs named elsewhere in commands/ cover.
 */
export const UNKNOWN_PROGRAM: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context);
    reportPathLikeArguments(context, words, `${context.program || 'program'} argument`);
    for (const word of words) {
      const file = prefixedPath(context, word);
      if (file !== undefined) context.file('read', file, `${context.program || 'program'} argument (a path inside the word)`);
    }
    // `setpriv --reuid 0 sh -c 'cat .env'`, `ssh-agent bash deploy.sh`: a program svc does not know
    // may be a wrapper, and a shell or interpreter among its arguments is run as it would run
    // alone when it is given code: inline, a script, or on a standard input that is not the
    // terminal's (`kubectl exec -it pod -- bash` alone starts an interactive shell, and nothing here).
    const start = words.findIndex((word) => word.value !== undefined && runsCode(posix.basename(word.value)));
    const givenCode = start !== -1 && (words.length > start + 1 || context.stdin.kind !== 'inherited');
    if (givenCode) context.run(words.slice(start));
    for (const word of words) commandString(context, word);
    // Cloud copy, sync and backup tools send a directory they are given whole, .env included.
    const subcommandWords = TREE_UPLOADERS.get(context.program);
    if (subcommandWords !== undefined) {
      // Its subcommand words (`gcloud config list`) are not directories, even when one is named alike.
      let skip = subcommandWords;
      for (const word of words) {
        if (skip > 0 && word.value !== undefined && !word.value.startsWith('-')) skip -= 1;
        else if (context.kindOf(word) === 'directory') context.file('read', word, `${context.program} directory (sent whole)`, { recursive: true });
      }
    }
    // `echo '{"scripts":{"test":"cat .env"}}' > package.json && npm test`: the manifest whose
    // scripts a package manager runs, written by this very line.
    for (const name of Object.hasOwn(PROJECT_MANIFESTS, context.program) ? (PROJECT_MANIFESTS[context.program] ?? []) : []) {
      const manifest = staticWord(name);
      if (context.writtenEarlier(manifest)) context.file('execute', manifest, `${context.program} (its project file)`);
    }
  },
};

/**
 * Programs that upload, sync, share or back up the directories they are given, everything inside:
 * `aws s3 sync . s3://b`, `rclone copy . remote:`, `gcloud builds submit .`, `restic backup ~`.
 */
const TREE_UPLOADERS: ReadonlyMap<string, number> = new Map([
  // The number of subcommand words that come first (`aws s3 sync`, `rclone copy`).
  ['aws', 2], ['gcloud', 2], ['az', 2], ['kopia', 2], ['gsutil', 1], ['azcopy', 1], ['rclone', 1], ['s3cmd', 1], ['mc', 1], ['b2', 1], ['restic', 1], ['borg', 1], ['rustic', 1],
  ['duplicity', 0], ['surge', 0], ['lftp', 0],
  // Peer-to-peer senders and static-site deploys: `croc send .`, `ipfs add -r .`, `netlify deploy --dir .`.
  ['croc', 1], ['wormhole', 1], ['ipfs', 1], ['netlify', 1], ['wrangler', 2],
]);

/** Files in the working directory whose commands a runner runs by its own convention. */
const PROJECT_MANIFESTS: Record<string, readonly string[]> = {
  npm: ['package.json', '.npmrc'],
  pnpm: ['package.json', '.npmrc'],
  yarn: ['package.json', '.yarnrc', '.yarnrc.yml'],
  just: ['justfile', 'Justfile', '.justfile'],
  rake: ['Rakefile', 'rakefile'],
};

/**
 * `hyperfine 'cat .env'`, `concurrently 'cat .env'`, `nodemon --exec 'cat .env'`, `nix-shell
 * --run 'cat .env'`: many tools take a whole command line in one word and run it through a shell.
 * A word (or an `--option=` value) that reads as one, a program svc knows or a path followed by
 * more words, is followed as shell code. A message that happens to start with such a name
 * (`--title 'cat facts'`) is analyzed too, which costs nothing unless it names a protected file.
 */
function commandString(context: CommandContext, word: Word): void {
  const value = word.value;
  if (value === undefined) return;
  const text = value.startsWith('-') ? (value.indexOf('=') > 0 ? value.slice(value.indexOf('=') + 1) : '') : value;
  const first = /^\s*([A-Za-z0-9_./+-]+)[ \t\n;|&<>]/.exec(text)?.[1];
  if (first === undefined || first.startsWith('-')) return;
  if (!first.includes('/') && conventionFor(posix.basename(first)) === UNKNOWN_PROGRAM) return;
  try {
    context.script(text, `${context.program || 'program'} argument run as a command line`);
  } catch (error) {
    if (!(error instanceof UnanalyzableCommand) || error instanceof AnalysisLimitReached) throw error;
    // Text that does not parse as bash here may still run somewhere (a shell more lenient than
    // the grammar): code known only at run time, not a refusal of the whole line.
    context.dynamic('execute', text.slice(0, 200), 'interpreter_code', `${context.program || 'program'} argument that may be a command line`);
  }
}

/**
 * A path inside a word, when it starts with `.`, `/` or `~`: after the first colon of `TYPE:path`
 * words (`OPEN:.env`, `FILE:~/.ssh/id_rsa`: socat-style addresses, tools' own `scheme:path`
 * syntax), after `=@` of an option (`--data=@.env`), and after a name and `=@`, `:=@`, `@` or `=`
 * (`data=@.env`, `file@.env`: httpie's fields read from files; `k=.env`: helm's --set-file). Not a
 * URL (`https://…`, handled as one).
 */
function prefixedPath(context: CommandContext, word: Word): Word | undefined {
  const value = word.value;
  if (value === undefined || isUrl(value)) return undefined;
  // `--data=@./x`, `--body=@.env`: an option value read from a file, as curl and many tools do.
  const optionFile = /^--?[\w-]+=@([./~].*)$/s.exec(value)?.[1];
  // httpie and its kin: `field=@file` (text), `field:=@file` (JSON), `field@file` (upload);
  // `key=path` (helm --set-file, ansible's src=): a path after a name and `=`.
  const named = value.startsWith('-') ? undefined : /^[A-Za-z_][\w.-]*(?::=@|=@|@|=)([./~].*)$/s.exec(value)?.[1];
  const path = optionFile ?? named ?? (value.startsWith('-') ? undefined : /^[A-Za-z][\w.+-]*:([./~].*)$/s.exec(value)?.[1]);
  if (path === undefined || path.startsWith('//')) return undefined;
  if (path === '~' || path.startsWith('~/')) return context.home === undefined ? { value: undefined, text: path, reason: 'variable' } : staticWord(posix.join(context.home, path.slice(1)));
  return path.startsWith('~') ? undefined : staticWord(path);
}

const SHELL_NAMES: ReadonlySet<string> = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'yash', 'rbash', 'fish', 'busybox']);

function runsCode(name: string): boolean {
  return SHELL_NAMES.has(name) || interpreterName(name) !== undefined;
}

/**
 * Compilers and tools documented to expand `@file` into the file's words: every `@word` is a
 * read of that file, path-like or not (`javac @args`), and the rest gets the heuristic above.
 */
const RESPONSE_FILE_PROGRAM: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context);
    for (const word of words) {
      const file = responseFile(word);
      if (file !== undefined) context.file('read', file, `${context.program} @file`);
    }
    reportPathLikeArguments(context, words.filter((word) => responseFile(word) === undefined), `${context.program} argument`);
    // `echo '#include ".env"' | gcc -E -x c -`: the preprocessor reads what the input includes.
    if (C_PREPROCESSING.has(context.program)) followStandardInput(context, 'c');
  },
};

const C_PREPROCESSING: ReadonlySet<string> = new Set(['gcc', 'g++', 'cc', 'c++', 'cpp', 'clang', 'clang++', 'clang-cl', 'tcc', 'emcc', 'nvcc', 'zig']);

const RESPONSE_FILE_PROGRAMS = [
  'gcc', 'g++', 'cc', 'c++', 'cpp', 'clang', 'clang++', 'clang-cl', 'gfortran', 'gdc', 'gccgo', 'ld', 'ld.lld', 'ld.gold', 'ld.bfd', 'lld', 'as', 'ar', 'nm', 'objdump', 'objcopy',
  'strip', 'ranlib', 'readelf', 'size', 'addr2line', 'c++filt', 'javac', 'java', 'javadoc', 'jar', 'jlink', 'jpackage', 'kotlinc', 'kotlin', 'scalac', 'scala', 'rustc', 'csc', 'dotnet',
  'msbuild', 'swiftc', 'zig', 'emcc', 'nvcc', 'tcc',
];

export const RESPONSE_FILE_COMMANDS: Record<string, CommandConvention> = Object.fromEntries(RESPONSE_FILE_PROGRAMS.map((name) => [name, RESPONSE_FILE_PROGRAM]));
