import { posix } from 'node:path';
import { parseArguments, staticWord, type ParsedArguments } from '../argument-parser.js';
import type { CommandContext, CommandConvention } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { argumentsOf, reportEach, shellJoin } from './operands.js';

/**
 * git reads and writes files in ways its arguments only hint at. What is followed:
 * - blob references `REV:path` (`git show HEAD:.env`, `git cat-file -p HEAD:id_rsa`) read that
 *   path's committed content: relative to the repository root, or to the working directory
 *   when written `REV:./path`;
 * - paths given to diff, log, show, blame, grep (their content is printed) are reads;
 * - rm, mv, checkout/restore of paths, clean are deletes and writes of those paths;
 * - `-C dir` moves the rest of the command; `-c` settings that run commands (core.pager,
 *   core.sshCommand, alias.*, …) and `submodule foreach`, `rebase --exec`, `bisect run` are code.
 * Not followed: a branch switch, merge, pull or reset rewrites tracked files wholesale, which this
 * analysis does not report (docs/shell-analysis.md, known limits).
 */

const GLOBAL_VALUE_OPTIONS = new Set(['-c', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--config-env', '--super-prefix', '--attr-source', '--list-cmds']);

/** Settings whose value is a command git runs. */
export const GIT_CODE_SETTINGS = /^(core\.(pager|editor|sshcommand|fsmonitor|askpass|hookspath)|sequence\.editor|diff\.external|gpg\.(program|\w+\.program)|credential\.helper|alias\..+|.+\.(textconv|command|cmd|helper|program|clean|smudge|process|tool)|uploadpack\.packobjectshook|pager\..+)$/i;

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
      } else if (GLOBAL_VALUE_OPTIONS.has(value)) index += 1;
    }
    const subcommand = words[index];
    if (subcommand === undefined) return;
    const rest = words.slice(index + 1);
    if (subcommand.value === undefined) {
      context.dynamic('execute', subcommand.text, subcommand.reason, 'git subcommand');
      return;
    }
    const handler = SUBCOMMANDS[subcommand.value];
    handler?.(context, rest);
  },
};

function checkSetting(context: CommandContext, setting: Word): void {
  if (setting.value === undefined) {
    context.dynamic('execute', setting.text, setting.reason, 'git -c');
    return;
  }
  const equals = setting.value.indexOf('=');
  const key = equals === -1 ? setting.value : setting.value.slice(0, equals);
  if (GIT_CODE_SETTINGS.test(key)) context.dynamic('execute', setting.value, 'interpreter_code', 'git -c setting that runs a command');
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
    if (context.kindOf(staticWord(posix.join(dir, '.git'))) !== undefined) return dir;
    if (dir === '/') return undefined;
  }
}

const BLOB_REFERENCE = /^([^:\s]*):(?:[0-3]:)?(?!\/\/)(.+)$/s;

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

/** Paths whose content a command prints: after `--`, or before it when they exist. */
function pathReads(context: CommandContext, before: readonly Word[], paths: readonly Word[], via: string): void {
  const named = [...paths, ...before.filter((word) => word.value !== undefined && !word.value.startsWith('-') && !BLOB_REFERENCE.test(word.value) && context.kindOf(word) !== undefined)];
  for (const path of named) context.file('read', path, via, context.kindOf(path) === 'directory' ? { recursive: true } : {});
}

/** Paths a command rewrites in the working tree. */
function pathWrites(context: CommandContext, paths: readonly Word[], kind: 'write' | 'delete', via: string, recursive = false): void {
  for (const path of paths) {
    if (path.value !== undefined && path.value.startsWith('-')) continue;
    context.file(kind, path, via, recursive || context.kindOf(path) === 'directory' ? { recursive: true, followFinal: kind === 'write' } : { followFinal: kind === 'write' });
  }
}

const SUBCOMMANDS: Record<string, Subcommand> = {
  show: (context, words) => showBlob(context, words, 'git show'),
  'cat-file': (context, words) => {
    blobReferences(context, words, 'git cat-file');
    // Objects named on standard input (`--batch`) or only at run time (`$(git rev-parse HEAD:.env)`) may be any file's content.
    const batch = words.some((word) => word.value?.startsWith('--batch') === true);
    const unknown = words.find((word) => word.value === undefined);
    if (batch || unknown !== undefined) context.dynamic('read', batch ? 'git cat-file --batch (objects named on standard input)' : (unknown?.text ?? ''), batch ? 'command_substitution' : (unknown?.reason ?? 'variable'), 'git cat-file object');
  },
  log: (context, words) => showBlob(context, words, 'git log'),
  whatchanged: (context, words) => showBlob(context, words, 'git whatchanged'),
  blame: (context, words) => showBlob(context, words, 'git blame'),
  annotate: (context, words) => showBlob(context, words, 'git annotate'),
  diff: (context, words) => {
    if (words.some((word) => word.value === '--no-index')) {
      const files = words.filter((word) => word.value !== undefined && !word.value.startsWith('-'));
      for (const file of files) context.file('read', file, 'git diff --no-index', context.kindOf(file) === 'directory' ? { recursive: true } : {});
      return;
    }
    showBlob(context, words, 'git diff');
  },
  difftool: (context, words) => {
    const parsed = parseArguments(words, { short: 'xty', long: ['extcmd', 'tool'] });
    for (const command of parsed.values('-x', '--extcmd')) runCode(context, command, 'git difftool --extcmd');
    showBlob(context, words, 'git difftool');
  },
  grep: (context, words) => {
    const { before, paths } = splitPathspecs(words);
    const parsed = parseArguments(before, { short: 'efABCmO', long: ['regexp', 'file', 'after-context', 'before-context', 'context', 'max-count', 'max-depth', 'threads', 'open-files-in-pager'] });
    reportEach(context, 'read', parsed.values('-f', '--file'), 'git grep pattern file');
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
    const parsed = parseArguments(before, { short: 'bBt', long: ['orphan', 'track', 'conflict', 'pathspec-from-file'] });
    reportEach(context, 'read', parsed.values('--pathspec-from-file'), 'git checkout --pathspec-from-file');
    // `git checkout REV file` without `--`: the words after the revision that are paths.
    const existing = parsed.operands.slice(1).filter((word) => context.kindOf(word) !== undefined);
    const single = parsed.operands.length === 1 && parsed.operands[0] !== undefined && context.kindOf(parsed.operands[0]) === 'file' ? [parsed.operands[0]] : [];
    pathWrites(context, [...paths, ...existing, ...single], 'write', 'git checkout');
  },
  restore: (context, words) => {
    const { before, paths } = splitPathspecs(words);
    const parsed = parseArguments(before, { short: 's', long: ['source', 'conflict', 'pathspec-from-file'] });
    reportEach(context, 'read', parsed.values('--pathspec-from-file'), 'git restore --pathspec-from-file');
    if (parsed.has('-S', '--staged') && !parsed.has('-W', '--worktree')) return;
    pathWrites(context, [...parsed.operands, ...paths], 'write', 'git restore');
  },
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
    const parsed = parseArguments(words, { long: ['cacheinfo', 'chmod', 'index-version', 'info-only'] });
    if (parsed.has('--stdin')) context.dynamic('read', 'paths read from standard input', 'command_substitution', 'git update-index --stdin');
    if (parsed.has('--index-info', '--cacheinfo')) return;
    reportEach(context, 'read', parsed.operands, 'git update-index');
  },
  tag: (context, words) => messageFiles(context, words, 'git tag'),
  notes: (context, words) => messageFiles(context, words, 'git notes'),
  merge: (context, words) => messageFiles(context, words, 'git merge'),
  config: (context, words) => {
    const parsed = parseArguments(words, { short: 'f', long: ['file', 'blob', 'type', 'default', 'comment'] });
    for (const file of parsed.values('-f', '--file')) {
      context.file('read', file, 'git config --file');
      if (!parsed.has('--get', '--get-all', '--get-regexp', '-l', '--list', '--get-urlmatch')) context.file('write', file, 'git config --file');
    }
    const [key, value] = parsed.operands;
    if (key?.value !== undefined && value !== undefined && GIT_CODE_SETTINGS.test(key.value)) context.dynamic('execute', value.value ?? value.text, 'interpreter_code', 'git config setting that runs a command');
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
    const parsed = parseArguments(words, { short: 'xsX', long: ['exec', 'onto', 'strategy', 'strategy-option', 'gpg-sign'] });
    for (const command of parsed.values('-x', '--exec')) runCode(context, command, 'git rebase --exec');
  },
  'filter-branch': (context, words) => {
    const parsed = parseArguments(words, { long: ['tree-filter', 'index-filter', 'msg-filter', 'commit-filter', 'env-filter', 'parent-filter', 'tag-name-filter', 'subdirectory-filter', 'prune-empty', 'original', 'state-branch', 'setup'] });
    for (const command of parsed.values('--tree-filter', '--index-filter', '--msg-filter', '--commit-filter', '--env-filter', '--parent-filter', '--tag-name-filter', '--setup')) runCode(context, command, 'git filter-branch');
  },
};

/** show, log, diff, blame: blob references and the paths whose content they print. */
function showBlob(context: CommandContext, words: readonly Word[], via: string): void {
  const { before, paths } = splitPathspecs(words);
  blobReferences(context, before, via);
  const parsed = parseArguments(before, { short: 'nLSGOU', long: ['format', 'pretty', 'author', 'committer', 'grep', 'since', 'until', 'after', 'before', 'max-count', 'skip', 'output', 'relative', 'diff-filter', 'encoding', 'date', 'abbrev', 'ignore-rev', 'ignore-revs-file', 'contents', 'word-diff', 'word-diff-regex', 'color-words', 'src-prefix', 'dst-prefix', 'line-prefix', 'unified', 'inter-hunk-context', 'stat'] });
  reportEach(context, 'read', parsed.values('--ignore-revs-file', '--contents'), `${via} option file`);
  reportEach(context, 'write', parsed.values('--output'), `${via} --output`);
  pathReads(context, parsed.operands, paths, `${via} pathspec`);
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
  const parsed = parseArguments(words, { short: 'FtmcCuS', long: ['file', 'template', 'message', 'reuse-message', 'reedit-message', 'fixup', 'squash', 'author', 'date', 'cleanup', 'gpg-sign', 'trailer', 'pathspec-from-file', 'strategy', 'strategy-option'] });
  reportEach(context, 'read', parsed.values('-F', '--file', '-t', '--template', '--pathspec-from-file'), `${via} message file`);
  return parsed;
}

function runCode(context: CommandContext, command: Word, via: string): void {
  if (command.value === undefined) context.dynamic('execute', command.text, command.reason, via);
  else context.script(command.value, via);
}

export const GIT_COMMANDS: Record<string, CommandConvention> = { git: GIT };
