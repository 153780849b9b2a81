import { posix } from 'node:path';
import { parseArguments, staticWord, type ParsedArguments } from '../argument-parser.js';
import type { CommandContext, CommandConvention } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { argumentsOf, isRemotePath, isUrl, looksLikePath, reportEach, reportPathLikeArguments, shellJoin } from './operands.js';

/**
 * git reads and writes files in ways its arguments only hint at. What is followed:
 * - blob references `REV:path` (`git show HEAD:.env`, `git cat-file -p HEAD:id_rsa`) read that
 *   path's committed content: relative to the repository root, or to the working directory
 *   when written `REV:./path`;
 * - paths given to diff, log, show, blame, grep (their content is printed) are reads;
 * - rm, mv, checkout/restore of paths, clean are deletes and writes of those paths;
 * - `-C dir` moves the rest of the command; `-c` and `--config-env` settings that run commands
 *   (core.pager, core.sshCommand, alias.*, …), `--exec-path=`, and `submodule foreach`,
 *   `rebase --exec`, `bisect run` are code;
 * - `update-index --cacheinfo` and `config --edit` write the path staged and the config edited;
 *   `--index-info`, mktree, commit-tree, update-ref, read-tree craft content later written out
 *   (dynamic writes).
 * Not followed: a branch switch, merge, pull or reset rewrites tracked files wholesale, which this
 * analysis does not report (docs/shell-analysis.md, known limits).
 */

const GLOBAL_VALUE_OPTIONS = new Set(['-c', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--config-env', '--super-prefix', '--attr-source', '--list-cmds']);

/**
 * Settings whose value is a command git runs, a program it starts, another config file it reads
 * (`include.path`, `includeIf.<condition>.path`: a file that can set any of these), a file it
 * writes traces into, or a template directory whose hooks it installs (`init.templateDir`). Matched case-insensitively against the whole key.
 */
export const GIT_CODE_SETTINGS = new RegExp(
  '^(?:' +
    [
      'core\\.(?:pager|editor|sshcommand|fsmonitor|askpass|hookspath|gitproxy|alternaterefscommand)',
      'sequence\\.editor',
      'diff\\.external',
      'gpg\\.(?:program|\\w+\\.program)',
      'gpg\\.ssh\\.defaultkeycommand',
      'credential\\.helper',
      'alias\\..+',
      'include\\.path',
      'includeif\\..+\\.path',
      'merge\\..+\\.driver',
      'interactive\\.difffilter',
      'remote\\..+\\.(?:uploadpack|receivepack|vcs)',
      'submodule\\..+\\.update',
      'sendemail\\.(?:smtpserver|tocmd|cccmd|headercmd|sendmailcmd)',
      '(?:difftool|mergetool|browser|man)\\..+\\.path',
      'trace2\\.(?:normaltarget|eventtarget|perftarget)',
      '.+\\.(?:textconv|command|cmd|helper|program|clean|smudge|process|tool)',
      'uploadpack\\.packobjectshook',
      'pager\\..+',
      // The template directory `git init`/`clone` copy hooks from, as `--template` does.
      'init\\.templatedir',
    ].join('|') +
    ')$',
  'i',
);

/** Settings whose value is another configuration file git reads as its own (which can set any of the above). */
export const GIT_INCLUDE_SETTINGS = /^(?:include\.path|includeif\..+\.path)$/i;

const GIT: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context);
    for (const [index, word] of words.entries()) {
      const value = word.value;
      if (value === undefined) continue;
      // `git clone 'ext::sh -c cat% .env' x`, or an insteadOf that rewrites a URL to one: the ext transport runs it as a command.
      if (value.includes('ext::')) context.dynamic('execute', value, 'interpreter_code', 'git ext:: transport command');
      // A template's hooks are copied into the new repository and run by its next commands.
      if (value === '--template' || value.startsWith('--template=')) context.dynamic('execute', value, 'interpreter_code', 'git --template (hooks it installs)');
      // Another repository's config (`--git-dir=/tmp/bare`: its `config`, not a `.git/config`) can run commands.
      if (value === '--git-dir' || value.startsWith('--git-dir=')) context.dynamic('execute', value, 'interpreter_code', 'git --git-dir (a repository whose config can run commands)');
      // `clone --config core.hooksPath=…`: a setting that runs a command, given to the new repository.
      const setting = value.startsWith('--config=') ? value.slice('--config='.length) : value === '--config' ? words[index + 1]?.value : undefined;
      const key = setting?.split('=')[0];
      if (key !== undefined && GIT_CODE_SETTINGS.test(key)) context.dynamic('execute', setting ?? value, 'interpreter_code', 'git --config setting that runs a command');
    }
    let index = 0;
    let workTree: Word | undefined;
    for (; index < words.length; index += 1) {
      const word = words[index] as Word;
      const value = word.value;
      if (value === undefined || !value.startsWith('-')) break;
      if (value === '-C') {
        const directory = words[index + 1];
        if (directory === undefined) return;
        context.run([context.argv[0] as Word, ...words.slice(index + 2)], { cwd: directory });
        return;
      }
      if (value === '-c') {
        const setting = words[index + 1];
        if (setting !== undefined) checkSetting(context, setting);
        index += 1;
      } else if (value === '--config-env' || value.startsWith('--config-env=')) {
        // `--config-env=KEY=VAR`: KEY set to the value of $VAR, unknown here; judged by its key as `-c` is.
        const setting = value === '--config-env' ? words[index + 1] : staticWord(value.slice('--config-env='.length));
        if (setting !== undefined) checkSetting(context, setting, 'git --config-env');
        if (value === '--config-env') index += 1;
      } else if (value.startsWith('--exec-path=')) {
        // `git --exec-path=bin zz` runs bin/git-zz, and any subcommand git runs as a program from there.
        context.dynamic('execute', value, 'interpreter_code', 'git --exec-path (git-* programs run from there)');
      } else if (value === '--work-tree') {
        workTree = words[index + 1];
        index += 1;
      } else if (value.startsWith('--work-tree=')) workTree = staticWord(value.slice('--work-tree='.length));
      else if (GLOBAL_VALUE_OPTIONS.has(value)) index += 1;
    }
    const subcommand = words[index];
    if (subcommand === undefined) return;
    const rest = words.slice(index + 1);
    if (subcommand.value === undefined) {
      context.dynamic('execute', subcommand.text, subcommand.reason, 'git subcommand');
      return;
    }
    // `--work-tree=dir`: paths name files of that tree, written and read there (the rest is checked there).
    // The index is still this repository's, and what it tracks is compared with that tree, patched
    // or copied there: any subcommand so moved is taken as reading the files it tracks.
    if (workTree !== undefined) {
      trackedFilesRead(context, 'git --work-tree', 'untracked');
      context.run([context.argv[0] as Word, subcommand, ...rest], { cwd: workTree });
      return;
    }
    // `HOME=/tmp/h git log`, `export HOME=…`, `sudo git …`: git reads `$HOME/.gitconfig` of a home not
    // known here, a file no guard covers, which can set a pager.
    if (context.home === undefined) context.dynamic('execute', '$HOME/.gitconfig', 'variable', 'git reads the global config of a HOME not known here');
    const bare = bareRepositoryAround(context);
    if (bare !== undefined) context.dynamic('execute', `${bare}/config`, 'interpreter_code', 'git in a bare repository (its config, not a guarded .git/config, can run commands)');
    runSubcommand(context, subcommand.value, rest);
  },
};

/** A subcommand's own handler; known subcommands without file effects do nothing; any other gets the unknown-subcommand reading. */
function runSubcommand(context: CommandContext, name: string, words: readonly Word[]): void {
  const handler = Object.hasOwn(SUBCOMMANDS, name) ? SUBCOMMANDS[name] : undefined;
  if (handler !== undefined) handler(context, words);
  else if (!QUIET_SUBCOMMANDS.has(name)) unknownSubcommand(context, name, words);
}

/**
 * The directory git finds as its repository from the working directory when that is a bare
 * repository (HEAD, objects/, refs/ in a directory not named `.git`) rather than a `<top>/.git`:
 * its `config` is an ordinary file no guard covers, so whatever it sets may run.
 */
function bareRepositoryAround(context: CommandContext): string | undefined {
  const start = context.absolute(staticWord('.'));
  if (start === undefined) return undefined;
  for (let dir = start; ; dir = posix.dirname(dir)) {
    if (context.kindOf(entryOf(dir, '.git')) !== undefined) return undefined;
    const layout = context.kindOf(entryOf(dir, 'HEAD')) === 'file' && context.kindOf(entryOf(dir, 'objects')) === 'directory' && context.kindOf(entryOf(dir, 'refs')) === 'directory';
    if (layout) return posix.basename(dir) === '.git' ? undefined : dir;
    if (dir === '/') return undefined;
  }
}

/**
 * The entry `name` of `dir`, an absolute and normalized directory (as context.absolute gives):
 * plain concatenation, since posix.join would normalize the path again, and these walks up to
 * `/` ask for several names in every directory on the way.
 */
function entryOf(dir: string, name: string): Word {
  return staticWord(dir === '/' ? `/${name}` : `${dir}/${name}`);
}

function checkSetting(context: CommandContext, setting: Word, via = 'git -c'): void {
  if (setting.value === undefined) {
    context.dynamic('execute', setting.text, setting.reason, via);
    return;
  }
  const equals = setting.value.indexOf('=');
  const key = equals === -1 ? setting.value : setting.value.slice(0, equals);
  if (GIT_CODE_SETTINGS.test(key)) context.dynamic('execute', setting.value, 'interpreter_code', `${via} setting that runs a command`);
}

type Subcommand = (context: CommandContext, words: readonly Word[]) => void;

/** Splits at the first `--`: before it revisions and options, after it only paths. */
function splitPathspecs(words: readonly Word[]): { before: Word[]; paths: Word[] } {
  const at = words.findIndex((word) => word.value === '--');
  return at === -1 ? { before: [...words], paths: [] } : { before: words.slice(0, at), paths: words.slice(at + 1) };
}

/** The repository's top directory: the nearest parent of the working directory holding `.git`. */
function repositoryRoot(context: CommandContext): string | undefined {
  const start = context.absolute(staticWord('.'));
  if (start === undefined) return undefined;
  for (let dir = start; ; dir = posix.dirname(dir)) {
    if (context.kindOf(entryOf(dir, '.git')) !== undefined) return dir;
    if (dir === '/') return undefined;
  }
}

const BLOB_REFERENCE = /^([^:\s]*):(?:[0-3]:)?(?!\/\/)(.+)$/s;

const CAT_FILE_TYPES = new Set(['blob', 'tree', 'commit', 'tag']);

/** `REV:path` words: a read of `path` as committed. */
function blobReferences(context: CommandContext, words: readonly Word[], via: string, recursive = false): void {
  let root: string | undefined | null = null;
  for (const word of words) {
    if (word.value === undefined || word.value.startsWith('-')) continue;
    const match = BLOB_REFERENCE.exec(word.value);
    if (!match) continue;
    const path = match[2] as string;
    if (path.startsWith('./') || path.startsWith('../') || path.startsWith('/')) {
      context.file('read', staticWord(path), via, recursive ? { recursive: true } : {});
      continue;
    }
    if (root === null) root = repositoryRoot(context);
    context.file('read', staticWord(root === undefined ? path : posix.join(root, path)), via, recursive ? { recursive: true } : {});
  }
}

/** Paths whose content a command prints: after `--`, or before it when they exist. How many there are. */
function pathReads(context: CommandContext, before: readonly Word[], paths: readonly Word[], via: string): number {
  const named = [...paths, ...before.filter((word) => word.value !== undefined && !word.value.startsWith('-') && !BLOB_REFERENCE.test(word.value) && context.kindOf(word) !== undefined)];
  for (const path of named) context.file('read', path, via, context.kindOf(path) === 'directory' ? { recursive: true } : {});
  return named.length;
}

/** Paths a command rewrites in the working tree. */
function pathWrites(context: CommandContext, paths: readonly Word[], kind: 'write' | 'delete', via: string, recursive = false): void {
  for (const path of paths) {
    if (path.value !== undefined && path.value.startsWith('-')) continue;
    context.file(kind, path, via, recursive || context.kindOf(path) === 'directory' ? { recursive: true, followFinal: kind === 'write' } : { followFinal: kind === 'write' });
  }
}

const SUBCOMMANDS: Record<string, Subcommand> = {
  show: (context, words) => showBlob(context, words, 'git show', { prints: 'by-default' }),
  'cat-file': (context, words) => {
    blobReferences(context, words, 'git cat-file');
    // Objects named on standard input (`--batch`) or only at run time (`$(git rev-parse HEAD:.env)`) may be any file's content.
    const batch = words.some((word) => word.value?.startsWith('--batch') === true);
    const unknown = words.find((word) => word.value === undefined);
    if (batch || unknown !== undefined) context.dynamic('read', batch ? 'git cat-file --batch (objects named on standard input)' : (unknown?.text ?? ''), batch ? 'command_substitution' : (unknown?.reason ?? 'variable'), 'git cat-file object');
    // `-p <object>`, `blob <object>`: an object named by its id or a ref may be any tracked file's content
    // (`git ls-files -s` prints each one's blob id).
    const prints = words.some((word) => word.value === '-p' || word.value === 'blob');
    const named = words.filter((word) => word.value === undefined || (!word.value.startsWith('-') && !CAT_FILE_TYPES.has(word.value) && !BLOB_REFERENCE.test(word.value)));
    if (prints && named.length > 0) trackedFilesRead(context, 'git cat-file', 'untracked');
  },
  log: (context, words) => showBlob(context, words, 'git log', { prints: 'on-request' }),
  reflog: (context, words) => showBlob(context, words, 'git reflog', { prints: 'on-request' }),
  // Every blob of the history it exports, and the patches of both series it compares.
  'fast-export': (context) => trackedFilesRead(context, 'git fast-export', 'untracked'),
  'range-diff': (context) => trackedFilesRead(context, 'git range-diff', 'untracked'),
  // Writes a blob, named by its id, into a file beside the working directory: a copy of any tracked file.
  'unpack-file': (context) => trackedFilesRead(context, 'git unpack-file', 'untracked'),
  whatchanged: (context, words) => showBlob(context, words, 'git whatchanged', { prints: 'on-request' }),
  blame: (context, words) => showBlob(context, words, 'git blame'),
  annotate: (context, words) => showBlob(context, words, 'git annotate'),
  diff: (context, words) => {
    if (words.some((word) => word.value === '--no-index')) {
      const files = words.filter((word) => word.value !== undefined && !word.value.startsWith('-'));
      for (const file of files) context.file('read', file, 'git diff --no-index', context.kindOf(file) === 'directory' ? { recursive: true } : {});
      return;
    }
    const { operands, paths } = showBlob(context, words, 'git diff', { prints: 'by-default', workingTree: true });
    // Two paths, one outside the working tree, are compared as files, `--no-index` or not: a word
    // known only at run time beside a path may be such a file (`git diff "$(echo ~/.ssh/id_rsa)" /dev/null`).
    const pair = [...operands, ...paths];
    if (pair.length === 2 && pair.some((word) => word.value === undefined) && pair.every((word) => word.value === undefined || context.kindOf(word) !== undefined || word.value.startsWith('/'))) {
      for (const word of pair) if (word.value === undefined) context.dynamic('read', word.text, word.reason, 'git diff path outside the working tree');
    }
  },
  difftool: (context, words) => {
    const parsed = parseArguments(words, { short: 'xt', long: ['extcmd', 'tool'] });
    for (const command of parsed.values('-x', '--extcmd')) runCode(context, command, 'git difftool --extcmd');
    showBlob(context, words, 'git difftool', { prints: 'by-default', workingTree: true });
  },
  grep: (context, words) => {
    const { before, paths } = splitPathspecs(words);
    // `-O[<pager>]`, `--open-files-in-pager[=<pager>]`: the value is glued or after `=`, and is a shell command.
    const parsed = parseArguments(before, { short: 'efABCm', glued: 'O', long: ['regexp', 'file', 'after-context', 'before-context', 'context', 'max-count', 'max-depth', 'threads'] });
    reportEach(context, 'read', parsed.values('-f', '--file'), 'git grep pattern file');
    for (const pager of parsed.values('-O', '--open-files-in-pager')) runCode(context, pager, 'git grep --open-files-in-pager');
    const patternGiven = parsed.has('-e', '--regexp', '-f', '--file');
    const operands = patternGiven ? parsed.operands : parsed.operands.slice(1);
    blobReferences(context, operands, 'git grep', true);
    const targets = [...operands.filter((word) => word.value === undefined || !BLOB_REFERENCE.test(word.value)).filter((word) => context.kindOf(word) !== undefined), ...paths];
    if (targets.length === 0) context.file('read', staticWord('.'), 'git grep (working tree)', { recursive: true });
    else reportEach(context, 'read', targets, 'git grep pathspec', { recursive: true });
  },
  archive: (context, words) => {
    const parsed = parseArguments(words, { short: 'o', long: ['output', 'format', 'prefix', 'remote', 'exec', 'add-file', 'add-virtual-file', 'mtime'] });
    reportEach(context, 'write', parsed.values('-o', '--output'), 'git archive --output');
    reportEach(context, 'read', parsed.values('--add-file'), 'git archive --add-file');
    transportCommands(context, parsed, ['--exec'], 'git archive --exec');
    blobReferences(context, parsed.operands, 'git archive', true);
    const [tree, ...paths] = parsed.operands;
    if (tree !== undefined && !(tree.value !== undefined && BLOB_REFERENCE.test(tree.value))) {
      if (paths.length === 0) context.file('read', staticWord(repositoryRoot(context) ?? '.'), 'git archive (whole tree)', { recursive: true });
      else reportEach(context, 'read', paths, 'git archive pathspec', { recursive: true });
    }
  },
  rm: (context, words) => {
    const parsed = parseArguments(words, { long: ['pathspec-from-file'] });
    reportEach(context, 'read', parsed.values('--pathspec-from-file'), 'git rm --pathspec-from-file');
    if (parsed.has('--cached', '-n', '--dry-run')) return;
    pathWrites(context, parsed.operands, 'delete', 'git rm', parsed.has('-r'));
  },
  mv: (context, words) => {
    const parsed = parseArguments(words);
    const sources = parsed.operands.slice(0, -1);
    const destination = parsed.operands[parsed.operands.length - 1];
    for (const source of sources) {
      const options = context.kindOf(source) === 'directory' ? { recursive: true, followFinal: false } : { followFinal: false };
      context.file('read', source, 'git mv source', options);
      context.file('delete', source, 'git mv source', options);
    }
    if (destination !== undefined && sources.length > 0) context.file('write', destination, 'git mv destination', sources.some((source) => context.kindOf(source) === 'directory') ? { recursive: true } : {});
  },
  checkout: (context, words) => {
    const { before, paths } = splitPathspecs(words);
    // `-t`/`--track[=…]` take no value of their own: the next word is the start point.
    const parsed = parseArguments(before, { short: 'bB', long: ['orphan', 'conflict', 'pathspec-from-file'] });
    reportEach(context, 'read', parsed.values('--pathspec-from-file'), 'git checkout --pathspec-from-file');
    // `git checkout REV file` without `--`: the words after the revision that are paths.
    const existing = parsed.operands.slice(1).filter((word) => context.kindOf(word) !== undefined);
    const single = parsed.operands.length === 1 && parsed.operands[0] !== undefined && context.kindOf(parsed.operands[0]) === 'file' ? [parsed.operands[0]] : [];
    pathWrites(context, [...paths, ...existing, ...single], 'write', 'git checkout');
    hunksShown(context, parsed, 'git checkout --patch');
  },
  restore: (context, words) => {
    const { before, paths } = splitPathspecs(words);
    const parsed = parseArguments(before, { short: 's', long: ['source', 'conflict', 'pathspec-from-file'] });
    reportEach(context, 'read', parsed.values('--pathspec-from-file'), 'git restore --pathspec-from-file');
    hunksShown(context, parsed, 'git restore --patch');
    if (parsed.has('-S', '--staged') && !parsed.has('-W', '--worktree')) return;
    pathWrites(context, [...parsed.operands, ...paths], 'write', 'git restore');
  },
  reset: (context, words) => hunksShown(context, parseArguments(splitPathspecs(words).before, { long: ['pathspec-from-file'] }), 'git reset --patch'),
  clean: (context, words) => {
    const { before, paths } = splitPathspecs(words);
    const parsed = parseArguments(before, { short: 'e', long: ['exclude'] });
    if (parsed.has('-n', '--dry-run')) return;
    const targets = [...parsed.operands, ...paths];
    if (targets.length === 0) context.file('delete', staticWord('.'), 'git clean', { recursive: true });
    else pathWrites(context, targets, 'delete', 'git clean', true);
  },
  apply: (context, words) => patch(context, words, 'git apply'),
  am: (context, words) => patch(context, words, 'git am'),
  add: (context, words) => stageFiles(context, words, 'git add'),
  stage: (context, words) => stageFiles(context, words, 'git stage'),
  commit: (context, words) => {
    const parsed = messageFiles(context, words, 'git commit');
    // `-a` stages every tracked change; paths (with or without -i/-o) commit those files' content.
    // Either way only tracked files are committed, so ignored untracked ones stay out.
    if (parsed.has('-a', '--all')) stagedRead(context, [], 'git commit -a', true);
    if (parsed.operands.length > 0) stagedRead(context, parsed.operands, 'git commit pathspec', true);
  },
  stash: (context, words) => {
    const [first, ...rest] = words;
    const action = first?.value !== undefined && !first.value.startsWith('-') ? first.value : 'push';
    // What `show` prints (names by default, a patch with -p or the stash.showPatch setting) is judged as a patch.
    if (action === 'show') trackedFilesRead(context, 'git stash show', 'untracked');
    if (action === 'list' && parseArguments(rest).has(...PATCH_OPTIONS)) trackedFilesRead(context, 'git stash list', 'untracked');
    if (action !== 'push' && action !== 'save') return;
    const parsed = parseArguments(action === first?.value ? rest : words, { short: 'm', long: ['message', 'pathspec-from-file'] });
    stagedListRead(context, parsed.values('--pathspec-from-file'), 'git stash --pathspec-from-file');
    // `git stash save` takes a message, not paths. Ignored files go in only with -a (--all).
    stagedRead(context, action === 'push' ? parsed.operands : [], 'git stash', !parsed.has('-a', '--all'));
  },
  'hash-object': (context, words) => {
    const parsed = parseArguments(words, { short: 't', long: ['path'] });
    if (parsed.has('--stdin-paths')) context.dynamic('read', 'paths read from standard input', 'command_substitution', 'git hash-object --stdin-paths');
    reportEach(context, 'read', parsed.operands, 'git hash-object');
  },
  'update-index': (context, words) => {
    // `--cacheinfo MODE,SHA,PATH` (or `MODE SHA PATH`) and `--index-info` stage content of any
    // object under a path, which a later `commit` and `reset --hard`/`checkout -f` write there.
    const cacheinfo = cacheinfoPaths(words);
    for (const path of cacheinfo) {
      if (path.value === undefined) context.file('write', path, 'git update-index --cacheinfo');
      else context.file('write', staticWord(posix.join(repositoryRoot(context) ?? '.', path.value)), 'git update-index --cacheinfo');
    }
    const indexInfo = words.some((word) => word.value !== undefined && word.value.length >= '--index-i'.length && '--index-info'.startsWith(word.value));
    if (indexInfo) context.dynamic('write', 'paths read from standard input', 'command_substitution', 'git update-index --index-info');
    const parsed = parseArguments(words, { long: ['chmod', 'index-version', 'info-only'] });
    if (parsed.has('--stdin')) context.dynamic('read', 'paths read from standard input', 'command_substitution', 'git update-index --stdin');
    if (indexInfo || cacheinfo.length > 0) return;
    reportEach(context, 'read', parsed.operands, 'git update-index');
  },
  // Plumbing that crafts trees, commits and refs by hand: what they put in the repository (and a
  // later checkout or `read-tree -u` writes into the working tree) is known only when they run.
  mktree: (context) => context.dynamic('write', 'a tree made from standard input', 'unsupported', 'git mktree'),
  'commit-tree': (context) => context.dynamic('write', 'a commit of any tree', 'unsupported', 'git commit-tree'),
  'update-ref': (context) => context.dynamic('write', 'a ref set to any commit', 'unsupported', 'git update-ref'),
  'read-tree': (context) => context.dynamic('write', 'the index (and with -u the working tree) from any tree', 'unsupported', 'git read-tree'),
  tag: (context, words) => messageFiles(context, words, 'git tag'),
  notes: (context, words) => messageFiles(context, words, 'git notes'),
  merge: (context, words) => messageFiles(context, words, 'git merge'),
  config: (context, words) => {
    const parsed = parseArguments(words, { short: 'f', long: ['file', 'blob', 'type', 'default', 'comment', 'value'] });
    for (const file of parsed.values('-f', '--file')) {
      context.file('read', file, 'git config --file');
      if (!parsed.has('--get', '--get-all', '--get-regexp', '-l', '--list', '--get-urlmatch')) context.file('write', file, 'git config --file');
    }
    // `git config -e` (`--edit`, `git config edit`): the editor rewrites the config file at will.
    if (parsed.has('-e', '--edit') || parsed.operands[0]?.value === 'edit') editedConfig(context, parsed);
    // `git config set KEY VALUE` (git 2.46) names its action first; `git config KEY VALUE` does not.
    const operands = parsed.operands[0]?.value !== undefined && CONFIG_ACTIONS.has(parsed.operands[0].value) ? parsed.operands.slice(1) : parsed.operands;
    const [key, value] = operands;
    if (key === undefined || value === undefined) return;
    if (key.value === undefined) context.dynamic('execute', `${key.text} ${value.value ?? value.text}`, key.reason, 'git config of a key known only at run time');
    else if (GIT_CODE_SETTINGS.test(key.value)) context.dynamic('execute', value.value ?? value.text, 'interpreter_code', 'git config setting that runs a command');
  },
  submodule: (context, words) => {
    const at = words.findIndex((word) => word.value === 'foreach');
    if (at === -1) return;
    const command = words.slice(at + 1).filter((word, index) => index > 0 || word.value !== '--recursive');
    runCode(context, command.length === 1 ? (command[0] as Word) : staticWord(shellJoin(command)), 'git submodule foreach');
  },
  bisect: (context, words) => {
    if (words[0]?.value === 'run' && words.length > 1) context.run(words.slice(1));
  },
  rebase: (context, words) => {
    const parsed = parseArguments(words, { short: 'xsX', long: ['exec', 'onto', 'strategy', 'strategy-option'] });
    for (const command of parsed.values('-x', '--exec')) runCode(context, command, 'git rebase --exec');
  },
  'filter-branch': (context, words) => {
    const parsed = parseArguments(words, { long: ['tree-filter', 'index-filter', 'msg-filter', 'commit-filter', 'env-filter', 'parent-filter', 'tag-name-filter', 'subdirectory-filter', 'prune-empty', 'original', 'state-branch', 'setup'] });
    for (const command of parsed.values('--tree-filter', '--index-filter', '--msg-filter', '--commit-filter', '--env-filter', '--parent-filter', '--tag-name-filter', '--setup')) runCode(context, command, 'git filter-branch');
  },
  'diff-files': (context, words) => showBlob(context, words, 'git diff-files', { prints: 'on-request', workingTree: true }),
  'diff-index': (context, words) => showBlob(context, words, 'git diff-index', { prints: 'on-request' }),
  'diff-tree': (context, words) => showBlob(context, words, 'git diff-tree', { prints: 'on-request' }),
  'checkout-index': (context, words) => {
    const { before, paths } = splitPathspecs(words);
    const parsed = parseArguments(before);
    const prefix = parsed.last('--prefix')?.value ?? '';
    // `--temp` writes each file to a fresh temporary name and prints it: nothing is written under its own name.
    if (parsed.has('--temp')) return;
    const written = `git checkout-index${prefix === '' ? '' : ' --prefix'}`;
    if (parsed.has('--stdin')) context.dynamic('write', `${prefix}(paths read from standard input)`, 'command_substitution', `${written} --stdin`);
    // `-a` writes every tracked file: the whole tree (under the prefix).
    if (parsed.has('-a', '--all')) {
      if (prefix === '') context.file('write', staticWord(repositoryRoot(context) ?? '.'), `${written} --all`, { recursive: true });
      else prefixedTreeWrite(context, prefix, `${written} --all`);
    }
    // The prefix is glued to each path as text: `--prefix=svc.ym` and `l` write `svc.yml`.
    for (const path of [...parsed.operands, ...paths]) {
      if (path.value === undefined) context.file('write', prefix === '' ? path : { value: undefined, text: `${prefix}${path.text}`, reason: path.reason }, written);
      else context.file('write', staticWord(`${prefix}${path.value}`), written, { followFinal: true });
    }
  },
  bundle: (context, words) => {
    const [action, ...rest] = words;
    const parsed = parseArguments(rest, { long: ['version'] });
    const file = parsed.operands[0];
    if (file === undefined) return;
    // A bundle holds the commits of the refs it is made of, each tracked file's content with them.
    if (action?.value === 'create') {
      context.file('write', file, 'git bundle create');
      trackedFilesRead(context, 'git bundle create', 'untracked');
    } else if (action?.value === 'verify' || action?.value === 'list-heads' || action?.value === 'unbundle') context.file('read', file, `git bundle ${action.value}`);
  },
  'interpret-trailers': (context, words) => {
    const parsed = parseArguments(words, { long: ['trailer', 'where', 'if-exists', 'if-missing'] });
    const inPlace = parsed.has('--in-place');
    for (const file of parsed.operands) {
      // Without --in-place the files are printed with their trailers: read.
      context.file('read', file, 'git interpret-trailers');
      if (inPlace) context.file('write', file, 'git interpret-trailers --in-place');
    }
  },
  worktree: (context, words) => {
    const [action, ...rest] = words;
    const parsed = parseArguments(rest, { short: 'bB', long: ['reason', 'orphan-branch', 'expire'] });
    const [first, second] = parsed.operands;
    if (first === undefined) return;
    // A new working tree is checked out at the path: every tracked file is written there.
    if (action?.value === 'add') {
      context.file('write', first, 'git worktree add', { recursive: true });
      trackedFilesRead(context, 'git worktree add', 'untracked');
    } else if (action?.value === 'move') {
      context.file('delete', first, 'git worktree move', { recursive: true, followFinal: false });
      if (second !== undefined) context.file('write', second, 'git worktree move', { recursive: true });
    } else if (action?.value === 'remove') context.file('delete', first, 'git worktree remove', { recursive: true, followFinal: false });
  },
  clone: (context, words) => {
    const parsed = parseArguments(words, { short: 'obucj', long: ['origin', 'branch', 'upload-pack', 'reference', 'reference-if-able', 'separate-git-dir', 'depth', 'shallow-since', 'shallow-exclude', 'config', 'jobs', 'filter', 'server-option', 'bundle-uri', 'ref-format', 'template'] });
    transportCommands(context, parsed, ['-u', '--upload-pack'], 'git clone --upload-pack');
    const [source, target] = parsed.operands;
    if (source === undefined) return;
    const directory = target ?? clonedDirectoryName(source);
    if (directory !== undefined) context.file('write', directory, 'git clone (the new repository)', { recursive: true });
    // A repository on this machine: its tracked files are checked out again under the new name.
    // One known only at run time may be one too.
    if (source.value === undefined) context.dynamic('read', source.text, source.reason, 'git clone source');
    const local = source.value === undefined ? undefined : source.value.startsWith('file://') ? source.value.slice('file://'.length) : isRemotePath(source.value) ? undefined : source.value;
    if (local !== undefined) context.file('read', staticWord(local), 'git clone (the tracked files of the source)', { recursive: true, skips: 'untracked' });
    unguardedRepository(context, parsed, 'git clone');
  },
  init: (context, words) => {
    const parsed = parseArguments(words, { long: ['template', 'separate-git-dir', 'object-format', 'ref-format', 'initial-branch'], short: 'b' });
    unguardedRepository(context, parsed, 'git init');
  },
  fetch: (context, words) => transportCommands(context, parseArguments(words, { long: ['upload-pack', 'depth', 'deepen', 'shallow-since', 'shallow-exclude', 'refmap', 'server-option', 'negotiation-tip', 'filter', 'jobs', 'recurse-submodules-default', 'submodule-prefix'], short: 'jo' }), ['--upload-pack'], 'git fetch --upload-pack'),
  pull: (context, words) => transportCommands(context, parseArguments(words, { long: ['upload-pack', 'depth', 'deepen', 'shallow-since', 'shallow-exclude', 'server-option', 'strategy', 'strategy-option', 'jobs'], short: 'sXj' }), ['--upload-pack'], 'git pull --upload-pack'),
  'ls-remote': (context, words) => transportCommands(context, parseArguments(words, { long: ['upload-pack', 'sort', 'server-option'], short: 'uo' }), ['-u', '--upload-pack'], 'git ls-remote --upload-pack'),
  'fetch-pack': (context, words) => transportCommands(context, parseArguments(words, { long: ['upload-pack', 'exec', 'depth'] }), ['--upload-pack', '--exec'], 'git fetch-pack --upload-pack'),
  push: (context, words) => {
    transportCommands(context, parseArguments(words, { long: ['receive-pack', 'exec', 'repo', 'push-option', 'recurse-submodules'], short: 'o' }), ['--receive-pack', '--exec'], 'git push --receive-pack');
    // The commits it sends carry every file they track to the remote.
    trackedFilesRead(context, 'git push', 'untracked');
  },
  'send-pack': (context, words) => transportCommands(context, parseArguments(words, { long: ['receive-pack', 'exec'] }), ['--receive-pack', '--exec'], 'git send-pack --receive-pack'),
  'credential-store': (context, words) => {
    const parsed = parseArguments(words, { long: ['file'] });
    const action = parsed.operands[0]?.value;
    // Without --file: ~/.git-credentials, the file `get` prints passwords from.
    const files = parsed.values('--file');
    const stores = files.length > 0 ? files : context.home === undefined ? [] : [staticWord(posix.join(context.home, '.git-credentials'))];
    if (files.length === 0 && context.home === undefined) context.dynamic('read', '~/.git-credentials', 'variable', 'git credential-store');
    for (const store of stores) {
      context.file('read', store, 'git credential-store');
      if (action === 'store' || action === 'erase') context.file('write', store, `git credential-store ${action}`);
    }
  },
  credential: (context, words) => {
    // `fill` asks the configured helpers (a store file, a keychain) for a password and prints it.
    if (words[0]?.value === 'fill') context.dynamic('read', 'passwords of the configured credential helpers', 'unsupported', 'git credential fill');
  },
  'format-patch': (context, words) => {
    const parsed = parseArguments(words, { short: 'ov', long: ['output-directory', 'signature-file', 'description-file', 'signature', 'subject-prefix', 'start-number', 'suffix', 'in-reply-to', 'to', 'cc', 'add-header', 'interdiff', 'range-diff', 'creation-factor', 'base', 'reroll-count', 'output'] });
    reportEach(context, 'read', parsed.values('--signature-file', '--description-file'), 'git format-patch option file');
    reportEach(context, 'write', parsed.values('-o', '--output-directory'), 'git format-patch --output-directory', { recursive: true });
    reportEach(context, 'write', parsed.values('--output'), 'git format-patch --output');
    if (splitPathspecs(words).paths.length === 0) trackedFilesRead(context, 'git format-patch', 'untracked');
  },
  'merge-file': (context, words) => {
    const parsed = parseArguments(words, { short: 'L', long: ['marker-size', 'diff-algorithm'] });
    const [current, ...others] = parsed.operands;
    if (current === undefined) return;
    context.file('read', current, 'git merge-file');
    reportEach(context, 'read', others, 'git merge-file');
    // The merge result replaces the first file unless printed (-p).
    if (!parsed.has('-p', '--stdout')) context.file('write', current, 'git merge-file');
  },
  'merge-index': (context, words) => {
    const program = parseArguments(words, { stopAtOperand: true }).operands[0];
    if (program !== undefined) context.dynamic('execute', program.value ?? program.text, program.value === undefined ? program.reason : 'interpreter_code', 'git merge-index program');
  },
  'send-email': (context, words) => {
    const parsed = parseArguments(words, { long: [...SEND_EMAIL_CODE_OPTIONS, 'from', 'to', 'cc', 'bcc', 'subject', 'in-reply-to', 'smtp-server-port', 'smtp-user', 'smtp-pass', 'smtp-encryption', 'smtp-domain', 'smtp-auth', 'identity', 'confirm', 'reply-to', 'transfer-encoding', 'envelope-sender', 'suppress-cc', 'compose-encoding', 'batch-size', 'relogin-delay', 'smtp-ssl-cert-path'] });
    for (const option of SEND_EMAIL_CODE_OPTIONS) for (const command of parsed.values(`--${option}`)) context.dynamic('execute', command.value ?? command.text, command.value === undefined ? command.reason : 'interpreter_code', `git send-email --${option}`);
    // The patches (files, or every file of a directory) are read and mailed.
    for (const file of parsed.operands) if (file.value === undefined || context.kindOf(file) !== undefined) context.file('read', file, 'git send-email', context.kindOf(file) === 'directory' ? { recursive: true } : {});
  },
  instaweb: (context, words) => {
    const parsed = parseArguments(words, { short: 'dbpm', long: ['httpd', 'browser', 'port', 'module-path'] });
    for (const command of parsed.values('-d', '--httpd', '-b', '--browser')) context.dynamic('execute', command.value ?? command.text, command.value === undefined ? command.reason : 'interpreter_code', 'git instaweb program');
    // gitweb shows any blob of the repository to whoever browses to it.
    trackedFilesRead(context, 'git instaweb', 'untracked');
  },
  // Whoever connects can clone the repositories it serves: every tracked file, as `git clone` of them would read.
  daemon: (context, words) => {
    const parsed = parseArguments(words, { long: ['base-path', 'interpolated-path', 'listen', 'port', 'init-timeout', 'timeout', 'max-connections', 'pid-file', 'user', 'group', 'access-hook', 'enable', 'disable', 'allow-override', 'forbid-override', 'log-destination'] });
    for (const hook of parsed.values('--access-hook')) context.dynamic('execute', hook.value ?? hook.text, hook.value === undefined ? hook.reason : 'interpreter_code', 'git daemon --access-hook');
    const served = [...parsed.values('--base-path'), ...parsed.operands];
    if (served.length === 0) context.dynamic('read', 'every repository on this machine', 'unsupported', 'git daemon (serves any repository by its path)');
    reportEach(context, 'read', served, 'git daemon (served repositories)', { recursive: true, skips: 'untracked' });
  },
};

/**
 * The paths of `git update-index --cacheinfo MODE,SHA,PATH` and of the older `--cacheinfo MODE SHA
 * PATH` (the option may be abbreviated), as written: relative to the repository's top directory.
 */
function cacheinfoPaths(words: readonly Word[]): Word[] {
  const paths: Word[] = [];
  for (const [index, word] of words.entries()) {
    const value = word.value;
    if (value === '--') break;
    if (value === undefined || value.length < '--ca'.length || !'--cacheinfo'.startsWith(value)) continue;
    const next = words[index + 1];
    if (next === undefined) continue;
    // `"100644,$blob,svc.yml"`: the object is known only at run time, the path may be written out.
    const text = next.value ?? next.text.replace(/^(["'])(.*)\1$/s, '$2');
    if (text.includes(',')) {
      const path = text.split(',').slice(2).join(',');
      paths.push(next.value !== undefined || /^[^$`"'\\]+$/.test(path) ? staticWord(path) : next);
    } else paths.push(words[index + 3] ?? next);
  }
  return paths;
}

/**
 * The file `git config --edit` opens in the editor (`--file F` is reported as written already):
 * `~/.gitconfig` with `--global`, `/etc/gitconfig` with `--system`, else the repository's
 * `.git/config` (`.git/config.worktree` with `--worktree`). The user's and system config are
 * also code: the editor may set any key there.
 */
function editedConfig(context: CommandContext, parsed: ParsedArguments): void {
  const via = 'git config --edit';
  if (parsed.has('-f', '--file', '--blob')) return;
  // The user's and the system's config are read by every git command: what the editor writes there may set a command.
  if (parsed.has('--global', '--system')) context.dynamic('execute', `${via} ${parsed.has('--global') ? '--global' : '--system'}`, 'interpreter_code', `${via} (any setting, one that runs a command among them)`);
  if (parsed.has('--global')) {
    if (context.home === undefined) context.dynamic('write', '$HOME/.gitconfig', 'variable', via);
    else context.file('write', staticWord(posix.join(context.home, '.gitconfig')), via);
  } else if (parsed.has('--system')) context.file('write', staticWord('/etc/gitconfig'), via);
  else context.file('write', staticWord(posix.join(repositoryRoot(context) ?? '.', '.git', parsed.has('--worktree') ? 'config.worktree' : 'config')), via);
}

/** `git config ACTION …` (git 2.46): the words that name an action rather than a key. */
const CONFIG_ACTIONS: ReadonlySet<string> = new Set(['set', 'get', 'unset', 'list', 'edit', 'rename-section', 'remove-section']);

/** send-email options whose value is a command it runs (or, for --smtp-server, a program path). */
const SEND_EMAIL_CODE_OPTIONS = ['to-cmd', 'cc-cmd', 'header-cmd', 'sendmail-cmd', 'smtp-server'];

/**
 * `--upload-pack`, `--receive-pack`, `--exec`: the program a local or ssh transport starts for
 * the other side, run through a shell (`git clone -u 'cat .env >&2; git-upload-pack' . x`).
 */
function transportCommands(context: CommandContext, parsed: ParsedArguments, options: readonly string[], via: string): void {
  for (const command of parsed.values(...options)) runCode(context, command, via);
}

/**
 * `git checkout-index -a --prefix=P`: every tracked path written as P followed by the path. A
 * prefix ending in `/` is a directory, written as a tree; any other prefix glues onto names
 * (`--prefix=.sv` writes `.svc/…`), which only the running command knows.
 */
function prefixedTreeWrite(context: CommandContext, prefix: string, via: string): void {
  if (prefix.endsWith('/')) context.file('write', staticWord(prefix), via, { recursive: true });
  else context.dynamic('write', `${prefix}*`, 'unsupported', via);
}

/** The directory `git clone URL` creates without one named: the last path component, less `.git`. */
function clonedDirectoryName(source: Word): Word | undefined {
  if (source.value === undefined) return source;
  const path = source.value.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').replace(/^[^/]*:/, '');
  const name = posix.basename(path.replace(/\/+$/, '').replace(/\/\.git$/, '')).replace(/\.(?:git|bundle)$/, '');
  return name === '' || name === '.' || name === '..' ? undefined : staticWord(name);
}

/**
 * `--bare`, `--mirror`, `--separate-git-dir`: a repository whose config is an ordinary file, not a
 * guarded `<top>/.git/config`, so a later command of the line (or a later line) can write code
 * settings into it and have git run them.
 */
function unguardedRepository(context: CommandContext, parsed: ParsedArguments, via: string): void {
  const option = ['--bare', '--mirror', '--separate-git-dir'].find((name) => parsed.has(name));
  if (option !== undefined) context.dynamic('execute', `${via} ${option}`, 'interpreter_code', `${via} ${option} (a repository config no guard covers)`);
}

/**
 * git subcommands known to touch no file their arguments name (or to rewrite tracked files
 * wholesale, which is not reported: see the module comment). Their operands are revisions,
 * branch names, remotes, messages.
 */
const QUIET_SUBCOMMANDS: ReadonlySet<string> = new Set([
  'status', 'branch', 'switch', 'remote', 'describe', 'rev-parse', 'rev-list', 'ls-files', 'ls-tree', 'show-ref', 'symbolic-ref', 'for-each-ref', 'merge-base',
  'name-rev', 'shortlog', 'count-objects', 'fsck', 'gc', 'prune', 'repack', 'pack-refs', 'cherry', 'cherry-pick', 'revert', 'version', 'help', 'var', 'verify-commit',
  'verify-tag', 'check-ignore', 'check-attr', 'check-ref-format', 'check-mailmap', 'write-tree', 'mktag', 'merge-tree',
  'sparse-checkout', 'maintenance', 'replace', 'rerere', 'request-pull', 'show-branch', 'stripspace', 'column', 'prune-packed', 'multi-pack-index', 'commit-graph',
  'fmt-merge-msg', 'patch-id', 'update-server-info', 'unpack-objects', 'show-index', 'get-tar-commit-id', 'mergetool', 'credential-cache', 'refs',
]);

/**
 * A subcommand svc has no conventions for: a git alias, an external `git-foo` program, a rarely
 * used one. As for any unknown program, words that look like paths (and `--opt=path` values)
 * are read; and since such a command may as well write them (`git foo svc.yml`), written too.
 */
function unknownSubcommand(context: CommandContext, name: string, words: readonly Word[]): void {
  const via = `git ${name} argument`;
  reportPathLikeArguments(context, words, via);
  for (const word of words) {
    const value = word.value;
    if (value === undefined) continue;
    const optionValue = value.startsWith('-') ? (value.indexOf('=') > 0 ? staticWord(value.slice(value.indexOf('=') + 1)) : undefined) : word;
    if (optionValue !== undefined && optionValue.value !== undefined && !optionValue.value.startsWith('-') && looksLikePath(context, optionValue) && !isUrl(optionValue.value)) context.file('write', optionValue, via);
  }
}

/**
 * When a diff-printing command prints file content: `by-default` (diff, show) unless it is told
 * to print only names or counts, `on-request` (log, diff-tree) only when asked for a patch.
 * `workingTree`: with no revision it compares the working tree with the index (diff, diff-files).
 */
interface PatchOutput {
  prints: 'by-default' | 'on-request';
  workingTree?: boolean;
}

/**
 * Options that ask for a patch: `-U<n>`, `-W`, `--word-diff`, `--binary` and the merge-diff ones
 * imply it. The pickaxe (`-S`, `-G`) prints no content, but which commits it lists answers
 * whether the changes of tracked files hold a string: asked often enough, what they hold.
 */
const PATCH_OPTIONS = ['-p', '-u', '--patch', '--patch-with-stat', '--patch-with-raw', '-c', '--cc', '--dd', '-m', '--diff-merges', '-U', '--unified', '-W', '--function-context', '--word-diff', '--word-diff-regex', '--color-words', '--binary', '-S', '-G'];
/** Options after which only names, counts or nothing are printed, unless a patch is asked for too. */
const NAMES_ONLY_OPTIONS = ['-s', '--no-patch', '--name-only', '--name-status', '--stat', '--numstat', '--shortstat', '--dirstat', '--compact-summary', '--summary', '--raw', '--quiet'];

/** Options that compare something other than the working tree with the index. */
const NOT_WORKING_TREE_OPTIONS = ['--cached', '--staged', '--merge-base'];

/**
 * show, log, diff, blame: blob references and the paths whose content they print. With no path
 * named, a command that prints a patch prints the changes of tracked files: a read of those git
 * tracks (`untracked` skipped), or for `git diff` of the working tree, of those changed since
 * they were staged (`unchanged` skipped too). What only the history holds is not seen.
 */
function showBlob(context: CommandContext, words: readonly Word[], via: string, patch?: PatchOutput): { operands: readonly Word[]; paths: readonly Word[] } {
  const { before, paths } = splitPathspecs(words);
  blobReferences(context, before, via);
  // `-U[<n>]`, `--unified`, `--pretty`, `--stat`, `--relative`, `--abbrev`, `--word-diff` and
  // `--color-words` take a value only glued or after `=`: `git diff -U .env` prints .env's changes.
  const parsed = parseArguments(before, { short: 'nLSGO', numeric: 'U', long: ['format', 'author', 'committer', 'grep', 'since', 'until', 'after', 'before', 'max-count', 'skip', 'output', 'diff-filter', 'encoding', 'date', 'ignore-rev', 'ignore-revs-file', 'contents', 'word-diff-regex', 'src-prefix', 'dst-prefix', 'line-prefix', 'inter-hunk-context'] });
  reportEach(context, 'read', parsed.values('--ignore-revs-file', '--contents'), `${via} option file`);
  reportEach(context, 'write', parsed.values('--output'), `${via} --output`);
  lineRangeReads(context, parsed.values('-L'), `${via} -L`);
  const named = pathReads(context, parsed.operands, paths, `${via} pathspec`);
  const revisions = parsed.operands.filter((word) => word.value === undefined || !BLOB_REFERENCE.test(word.value));
  const blobsOnly = revisions.length === 0 && parsed.operands.length > 0; // `git show HEAD:README.md`
  if (patch === undefined || named > 0 || blobsOnly) return { operands: parsed.operands, paths };
  if (parsed.has(...PATCH_OPTIONS) || (patch.prints === 'by-default' && !parsed.has(...NAMES_ONLY_OPTIONS))) {
    const workingTree = patch.workingTree === true && revisions.length === 0 && !parsed.has(...NOT_WORKING_TREE_OPTIONS);
    trackedFilesRead(context, via, workingTree ? 'unchanged' : 'untracked');
  }
  return { operands: parsed.operands, paths };
}

/**
 * `--patch` asks about each hunk of every tracked file it would change, printing it first (answers
 * can come from a pipe: `yes n | git checkout -p`).
 */
function hunksShown(context: CommandContext, parsed: ParsedArguments, via: string): void {
  if (parsed.has('-p', '--patch')) trackedFilesRead(context, via, 'untracked');
}

/** A read of the tracked files of the repository around the working directory, as `skips` narrows them. */
export function trackedFilesRead(context: CommandContext, via: string, skips: 'untracked' | 'unchanged'): void {
  const root = repositoryRoot(context);
  if (root !== undefined) context.file('read', staticWord(root), `${via} (tracked files)`, { recursive: true, skips });
}

/** `-L<start>,<end>:<file>` and `-L:<funcname>:<file>` print lines of `<file>`. */
function lineRangeReads(context: CommandContext, ranges: readonly Word[], via: string): void {
  for (const range of ranges) {
    if (range.value === undefined) context.dynamic('read', range.text, range.reason, via);
    else if (range.value.includes(':')) context.file('read', staticWord(range.value.slice(range.value.lastIndexOf(':') + 1)), via);
  }
}

function patch(context: CommandContext, words: readonly Word[], via: string): void {
  const parsed = parseArguments(words, { short: 'pC', long: ['directory', 'exclude', 'include', 'whitespace', 'build-fake-ancestor', 'patch-format', 'resolvemsg'] });
  reportEach(context, 'read', parsed.operands, `${via} patch`);
  if (parsed.has('--check', '--stat', '--numstat', '--summary', '--show-current-patch')) return;
  // Which files a patch changes is in its content, which this analysis does not read.
  context.dynamic('write', `files named in ${parsed.operands.map((word) => word.value ?? word.text).join(' ') || 'the patch'}`, 'unsupported', via);
}

/**
 * add, stage: the files they stage are read into git's object store, where any later `git show`
 * prints them. Pathspecs default to the whole working tree with `-A`, `-u`, `-p`. Ignored files
 * are skipped unless `-f`: the read says so, and the guard checks each protected file inside.
 */
function stageFiles(context: CommandContext, words: readonly Word[], via: string): void {
  const { before, paths } = splitPathspecs(words);
  const parsed = parseArguments(before, { long: ['chmod', 'pathspec-from-file'] });
  if (parsed.has('-n', '--dry-run', '-N', '--intent-to-add', '--refresh')) return;
  stagedListRead(context, parsed.values('--pathspec-from-file'), `${via} --pathspec-from-file`);
  const pathspecs = [...parsed.operands, ...paths];
  const skipsIgnored = !parsed.has('-f', '--force');
  if (pathspecs.length > 0) stagedRead(context, pathspecs, via, skipsIgnored);
  else if (parsed.has('-A', '--all', '-u', '--update', '-p', '--patch', '-i', '--interactive')) stagedRead(context, [], via, skipsIgnored);
}

/** A read of what these pathspecs match (directories recursively), or of the whole working tree when there are none. */
function stagedRead(context: CommandContext, pathspecs: readonly Word[], via: string, skipsGitIgnored: boolean): void {
  const skips = skipsGitIgnored ? { skips: 'git' as const } : {};
  if (pathspecs.length === 0) {
    context.file('read', staticWord(repositoryRoot(context) ?? '.'), `${via} (working tree)`, { recursive: true, ...skips });
    return;
  }
  for (const path of pathspecs) {
    if (path.value !== undefined && path.value.startsWith('-')) continue;
    context.file('read', path, via, context.kindOf(path) === 'directory' || path.value === undefined ? { recursive: true, ...skips } : {});
  }
}

/** `--pathspec-from-file F`: F is read, and so are the files it lists, known only when git runs. */
function stagedListRead(context: CommandContext, lists: readonly Word[], via: string): void {
  for (const list of lists) {
    context.file('read', list, via);
    context.dynamic('read', `files listed in ${list.value ?? list.text}`, 'unsupported', via);
  }
}

/** `-F file` / `--file=file` / `-t template`: a message read from a file. */
function messageFiles(context: CommandContext, words: readonly Word[], via: string): ParsedArguments {
  // `-S[keyid]` and `--gpg-sign[=keyid]` take a key only glued to them: `commit -S -m x` signs and has a message.
  // `-u[<mode>]` takes only a glued mode.
  const parsed = parseArguments(words, { short: 'FtmcC', glued: 'u', long: ['file', 'template', 'message', 'reuse-message', 'reedit-message', 'fixup', 'squash', 'author', 'date', 'cleanup', 'trailer', 'pathspec-from-file', 'strategy', 'strategy-option'] });
  reportEach(context, 'read', parsed.values('-F', '--file', '-t', '--template', '--pathspec-from-file'), `${via} message file`);
  return parsed;
}

function runCode(context: CommandContext, command: Word, via: string): void {
  if (command.value === undefined) context.dynamic('execute', command.text, command.reason, via);
  else context.script(command.value, via);
}

export const GIT_COMMANDS: Record<string, CommandConvention> = { git: GIT };
