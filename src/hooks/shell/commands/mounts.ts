import { parseArguments, staticWord } from '../argument-parser.js';
import type { CommandContext, CommandConvention } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { reportSshConfigFiles } from './network-clients.js';
import { argumentsOf, remoteFileHere } from './operands.js';

/**
 * Programs that mount one directory over another. The tree mounted can then be read under the
 * mount point, a name no protected path covers (`sshfs localhost:.ssh /tmp/m`, then
 * `cat /tmp/m/id_rsa`), and the mount point's own files are hidden behind it, so mounting over
 * a guard directory replaces what it holds (`bindfs /tmp/x .git/hooks`). So the source is a
 * recursive read and the mount point a recursive write.
 */

/** `-o a=b,c`: sshfs and FUSE options; these run a program or name a file ssh reads. */
const SSHFS_CODE_OPTIONS = /^(?:ssh_command|sftp_server|proxycommand|localcommand|knownhostscommand)=/i;
const SSHFS_FILE_OPTIONS = /^(?:identityfile|userknownhostsfile|certificatefile|include)=/i;

/** sshfs `[user@]host:[dir] mountpoint`: the remote directory, taken as on this machine (the host may be this one). */
const SSHFS: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'opF' });
    for (const list of parsed.values('-o')) sshfsOptions(context, list);
    reportSshConfigFiles(context, parsed.values('-F'), 'sshfs');
    const [remote, mountPoint] = parsed.operands;
    if (remote !== undefined) {
      const source = remote.value === undefined ? remote : remoteFileHere(context, remote.value.includes(':') ? remote.value : `${remote.value}:`);
      if (source !== undefined) context.file('read', source, 'sshfs remote directory', { recursive: true });
    }
    if (mountPoint !== undefined) mountOver(context, mountPoint, 'sshfs mount point');
  },
};

function sshfsOptions(context: CommandContext, list: Word): void {
  if (list.value === undefined) {
    context.dynamic('execute', list.text, list.reason, 'sshfs -o options');
    return;
  }
  for (const option of list.value.split(',')) {
    if (SSHFS_CODE_OPTIONS.test(option)) context.dynamic('execute', option, 'interpreter_code', 'sshfs -o option that runs a program');
    else if (SSHFS_FILE_OPTIONS.test(option)) context.file('read', staticWord(option.slice(option.indexOf('=') + 1)), 'sshfs -o file');
  }
}

/** bindfs `[options] source mountpoint`. */
const BINDFS: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'oupgmM', long: ['perms', 'mirror', 'mirror-only', 'map', 'map-passwd', 'map-group', 'create-for-user', 'create-for-group', 'create-with-perms', 'chown-policy', 'chgrp-policy', 'chmod-policy', 'xattr-policy', 'delete-deny', 'rename-deny', 'uid-offset', 'gid-offset', 'force-user', 'force-group'] });
    const [source, mountPoint] = parsed.operands;
    if (source !== undefined) context.file('read', source, 'bindfs source', { recursive: true });
    if (mountPoint !== undefined) mountOver(context, mountPoint, 'bindfs mount point');
  },
};

/**
 * mount `[options] source target` (`--bind`, `--rbind`, `--move`, `-o bind`; a device or an
 * image, whose files are read through the target too). With one operand, fstab says what goes
 * where: that operand is a mount point.
 */
const MOUNT: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'otLUNTF', long: ['options', 'types', 'label', 'uuid', 'namespace', 'fstab', 'target', 'source', 'target-prefix', 'test-opts', 'map-users', 'map-groups'] });
    const sources = [...parsed.values('--source'), ...(parsed.operands.length >= 2 ? parsed.operands.slice(0, -1) : [])];
    const targets = [...parsed.values('--target'), ...parsed.operands.slice(parsed.operands.length >= 2 ? -1 : 0)];
    for (const source of sources) context.file('read', source, 'mount source', { recursive: true });
    for (const target of targets) mountOver(context, target, 'mount target');
  },
};

function mountOver(context: CommandContext, mountPoint: Word, via: string): void {
  context.file('write', mountPoint, via, { recursive: true });
}

export const MOUNTS: Record<string, CommandConvention> = { sshfs: SSHFS, bindfs: BINDFS, mount: MOUNT };
