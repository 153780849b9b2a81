import { posix } from 'node:path';
import { parseArguments, staticWord, type OptionSyntax } from '../argument-parser.js';
import type { CommandContext, CommandConvention } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { reportSshClientOptions } from './network-clients.js';
import { argumentsOf, isRemotePath, landingPlace, remoteFileHere, reportEach } from './operands.js';

/**
 * Programs that copy, move or link files: sources are read (mv also deletes them),
 * destinations written, at the place the copy really lands (`cp .env dir/` writes `dir/.env`).
 * A link is a read of its target (a symlink to a protected file prepares a bypass; to a directory,
 * of everything under it) and a write of the link name; later commands of the line see the link.
 */

// --backup, --preserve, --reflink, --context and --update take a value only after `=`.
const COPY_SYNTAX: OptionSyntax = { short: 'tS', long: ['target-directory', 'suffix', 'no-preserve', 'sparse'] };
// install -C (--compare) is a flag; --context and --backup take a value only after `=`.
const INSTALL_SYNTAX: OptionSyntax = { short: 'gmotS', long: ['group', 'mode', 'owner', 'target-directory', 'suffix', 'strip-program'] };

function copier(mode: 'copy' | 'move' | 'install'): CommandConvention {
  return {
    handler(context) {
      const parsed = parseArguments(argumentsOf(context), mode === 'install' ? INSTALL_SYNTAX : COPY_SYNTAX);
      if (mode === 'install' && parsed.has('-d', '--directory')) {
        reportEach(context, 'write', parsed.operands, 'install -d');
        return;
      }
      const recursive = mode === 'copy' && parsed.has('-r', '-R', '-a', '--recursive', '--archive');
      const hardLinks = mode === 'copy' && parsed.has('-l', '--link');
      const { sources, destination, intoDirectory } = splitDestination(context, parsed.operands, parsed.last('-t', '--target-directory'), parsed.has('-T', '--no-target-directory'));
      for (const source of sources) {
        // Moving a directory moves everything under it.
        const tree = recursive || (mode === 'move' && context.kindOf(source) === 'directory');
        const options = tree ? { recursive: true } : {};
        context.file('read', source, `${context.program} source`, mode === 'move' ? { ...options, followFinal: false } : options);
        if (mode === 'move') context.file('delete', source, 'mv source', { ...options, followFinal: false });
        // cp writes through a symlink it lands on; mv replaces the link itself.
        if (destination === undefined) continue;
        const landing = landingPlace(context, source, destination, intoDirectory);
        context.file('write', landing, `${context.program} destination`, mode === 'move' ? { ...options, followFinal: false } : options);
        // `cp -l`: a hard link, through which later writes of the line reach the source.
        if (hardLinks) context.linked(source, landing, false);
      }
    },
  };
}

/** The last operand is the destination unless `-t dir` named it; several sources need a directory. */
function splitDestination(context: CommandContext, operands: readonly Word[], targetDirectory: Word | undefined, noTargetDirectory: boolean): { sources: readonly Word[]; destination: Word | undefined; intoDirectory: boolean } {
  if (targetDirectory !== undefined) return { sources: operands, destination: targetDirectory, intoDirectory: true };
  if (operands.length < 2) return { sources: operands, destination: undefined, intoDirectory: false };
  const destination = operands[operands.length - 1] as Word;
  const sources = operands.slice(0, -1);
  const intoDirectory = !noTargetDirectory && (sources.length > 1 || context.kindOf(destination) === 'directory');
  return { sources, destination, intoDirectory };
}

/** ln: `ln target`, `ln target link`, `ln targets… dir`, `ln -t dir targets…`. */
const LINK: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'tS', long: ['target-directory', 'suffix'] });
    const symbolic = parsed.has('-s', '--symbolic');
    let pairs: { target: Word; link: Word }[];
    const targetDirectory = parsed.last('-t', '--target-directory');
    if (targetDirectory !== undefined) {
      pairs = parsed.operands.map((target) => ({ target, link: landingPlace(context, target, targetDirectory, true) }));
    } else if (parsed.operands.length === 1) {
      const target = parsed.operands[0] as Word;
      pairs = [{ target, link: target.value === undefined ? target : staticWord(posix.basename(target.value.replace(/\/+$/, '')) || '.') }];
    } else {
      const { sources, destination, intoDirectory } = splitDestination(context, parsed.operands, undefined, parsed.has('-T', '--no-target-directory', '-n', '--no-dereference'));
      pairs = destination === undefined ? [] : sources.map((target) => ({ target, link: landingPlace(context, target, destination, intoDirectory) }));
    }
    for (const { target, link } of pairs) {
      // A relative symlink target is relative to the link's directory, not to the working directory.
      // A link to a directory is a read of the whole tree: whatever secret lies under it is one
      // `cat link/…` or `grep -r x link` away, and the link is how it gets out later.
      context.file('read', target, 'ln target', { ...(symbolic && { relativeTo: link }), recursive: true });
      context.file('write', link, 'ln link name', { followFinal: false });
      context.linked(target, link, symbolic);
    }
  },
};

const RSYNC_SYNTAX: OptionSyntax = {
  short: 'eBfTM',
  long: [
    'rsh', 'rsync-path', 'exclude', 'include', 'filter', 'exclude-from', 'include-from', 'files-from', 'password-file', 'log-file', 'log-file-format', 'temp-dir',
    'backup-dir', 'suffix', 'port', 'bwlimit', 'chmod', 'chown', 'timeout', 'contimeout', 'max-size', 'min-size', 'partial-dir', 'compare-dest', 'copy-dest', 'link-dest',
    'out-format', 'block-size', 'max-delete', 'modify-window', 'iconv', 'sockopts', 'usermap', 'groupmap', 'skip-compress', 'info', 'debug', 'remote-option',
    'write-batch', 'only-write-batch', 'read-batch', 'compress-level', 'compress-choice', 'checksum-choice', 'address', 'outbuf', 'stop-after', 'stop-at',
  ],
};

/** rsync: local sources read, a local destination written; `-e` is a command line it runs. */
const RSYNC: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), RSYNC_SYNTAX);
    reportEach(context, 'read', parsed.values('--exclude-from', '--include-from', '--files-from', '--password-file', '--read-batch'), 'rsync option file');
    reportEach(context, 'write', parsed.values('--log-file', '--write-batch', '--only-write-batch'), 'rsync option file');
    for (const shell of parsed.values('-e', '--rsh')) {
      if (shell.value === undefined) context.dynamic('execute', shell.text, shell.reason, 'rsync -e');
      else context.script(shell.value, 'rsync -e');
    }
    const recursive = parsed.has('-r', '-a', '--recursive', '--archive');
    const options = recursive ? { recursive: true } : {};
    const operands = parsed.operands;
    const destination = operands.length >= 2 ? operands[operands.length - 1] : undefined;
    const sources = destination === undefined ? operands : operands.slice(0, -1);
    for (const source of sources) {
      if (source.value !== undefined && isRemotePath(source.value)) {
        const remote = remoteFileHere(context, source.value);
        if (remote !== undefined) context.file('read', remote, 'rsync remote source', options);
        continue;
      }
      context.file('read', source, 'rsync source', options);
      if (parsed.has('--remove-source-files')) context.file('delete', source, 'rsync --remove-source-files', options);
    }
    if (destination !== undefined && destination.value !== undefined && isRemotePath(destination.value)) {
      const remote = remoteFileHere(context, destination.value);
      if (remote !== undefined) context.file('write', remote, 'rsync remote destination', options);
    } else if (destination !== undefined) context.file('write', destination, 'rsync destination', options);
  },
};

/** scp: like cp between machines; the identity and config files it is given are read. */
const SCP: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'iFPocSlJDX' });
    reportSshClientOptions(context, parsed, 'scp');
    const options = parsed.has('-r') ? { recursive: true } : {};
    const operands = parsed.operands;
    const destination = operands.length >= 2 ? operands[operands.length - 1] : undefined;
    const sources = destination === undefined ? operands : operands.slice(0, -1);
    const localDestination = destination !== undefined && !(destination.value !== undefined && isRemotePath(destination.value)) ? destination : undefined;
    const remoteDestination = destination?.value !== undefined && localDestination === undefined ? remoteFileHere(context, destination.value) : undefined;
    if (remoteDestination !== undefined) context.file('write', remoteDestination, 'scp remote destination', options);
    const intoDirectory = localDestination !== undefined && (sources.length > 1 || context.kindOf(localDestination) === 'directory');
    for (const source of sources) {
      if (source.value !== undefined && isRemotePath(source.value)) {
        const remote = remoteFileHere(context, source.value);
        if (remote !== undefined) context.file('read', remote, 'scp remote source', options);
        if (localDestination !== undefined) context.file('write', landingPlace(context, staticWord(source.value.slice(source.value.indexOf(':') + 1)), localDestination, intoDirectory), 'scp destination', options);
        continue;
      }
      context.file('read', source, 'scp source', options);
      if (localDestination !== undefined) context.file('write', landingPlace(context, source, localDestination, intoDirectory), 'scp destination', options);
    }
  },
};

/** dd: `if=` is read, `of=` written. */
const DD: CommandConvention = {
  handler(context) {
    for (const word of argumentsOf(context)) {
      if (word.value === undefined) {
        context.file('read', word, 'dd operand');
        continue;
      }
      const match = /^(if|of)=(.*)$/s.exec(word.value);
      if (!match) continue;
      const [, key, path = ''] = match;
      context.file(key === 'if' ? 'read' : 'write', staticWord(path), `dd ${key}=`);
    }
  },
};

export const FILE_TRANSFER: Record<string, CommandConvention> = {
  cp: copier('copy'),
  gcp: copier('copy'),
  mv: copier('move'),
  gmv: copier('move'),
  install: copier('install'),
  ln: LINK,
  // `link FILE1 FILE2`: ln without its options.
  link: LINK,
  rsync: RSYNC,
  scp: SCP,
  dd: DD,
};
