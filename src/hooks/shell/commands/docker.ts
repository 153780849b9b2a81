import { posix } from 'node:path';
import { parseArguments, staticWord } from '../argument-parser.js';
import type { CommandContext, CommandConvention } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { argumentsOf, DOTENV_FILE, isUrl, reportEach, reportEnvFiles } from './operands.js';

/**
 * docker and podman, where they touch the host's files: `docker cp` copies between a container
 * and the host; `build` sends its whole context directory (and `--secret src=…` files) to the
 * daemon; `run`/`create` bind-mount host paths (read and write unless `:ro`) and read
 * `--env-file`s. What happens inside the container is not a host file operation.
 */

const GLOBAL_VALUE_OPTIONS = new Set(['-H', '--host', '--context', '-c', '--config', '-l', '--log-level', '--tlscacert', '--tlscert', '--tlskey']);

const RUN_VALUE_LONG = [
  'volume', 'mount', 'env-file', 'env', 'name', 'publish', 'workdir', 'entrypoint', 'user', 'network', 'label', 'label-file', 'cidfile', 'hostname', 'platform', 'restart',
  'memory', 'cpus', 'device', 'add-host', 'dns', 'log-driver', 'log-opt', 'tmpfs', 'ulimit', 'expose', 'gpus', 'pid', 'ipc', 'security-opt', 'cap-add', 'cap-drop',
  'stop-signal', 'health-cmd', 'volumes-from', 'link', 'shm-size', 'pull', 'runtime', 'attach', 'cpu-shares', 'cpuset-cpus', 'memory-swap', 'storage-opt', 'sysctl',
  'userns', 'uts', 'group-add', 'annotation', 'detach-keys', 'domainname', 'mac-address', 'ip', 'ip6', 'network-alias', 'stop-timeout', 'cgroupns', 'cgroup-parent',
];

const DOCKER: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context);
    let index = 0;
    for (; index < words.length; index += 1) {
      const value = words[index]?.value;
      if (value === undefined || !value.startsWith('-')) break;
      if ((value === '--config' || value.startsWith('--config=')) && value !== '--config=') {
        const directory = value === '--config' ? words[index + 1] : staticWord(value.slice('--config='.length));
        if (directory !== undefined) context.file('read', directory, 'docker --config', { recursive: true });
      }
      if (GLOBAL_VALUE_OPTIONS.has(value)) index += 1;
    }
    let subcommand = words[index]?.value;
    let rest = words.slice(index + 1);
    // `docker container cp`, `docker image build`, `docker buildx build`: the management word first.
    if ((subcommand === 'container' || subcommand === 'image' || subcommand === 'buildx' || subcommand === 'builder') && rest[0]?.value !== undefined) {
      subcommand = rest[0].value;
      rest = rest.slice(1);
    }
    if (subcommand === 'cp') copy(context, rest);
    else if (subcommand === 'build') build(context, rest);
    else if (subcommand === 'run' || subcommand === 'create') run(context, rest);
    else if (subcommand === 'compose') compose(context, rest);
    else if (subcommand === 'load' || subcommand === 'import') reportEach(context, 'read', parseArguments(rest, { short: 'icm', long: ['input', 'change', 'message', 'platform'] }).values('-i', '--input'), `docker ${subcommand} --input`);
    // `docker secret create NAME FILE`, `docker config create NAME FILE`: the file's content goes to the swarm.
    else if ((subcommand === 'secret' || subcommand === 'config') && rest[0]?.value === 'create') {
      const file = parseArguments(rest.slice(1), { short: 'ld', long: ['label', 'driver', 'template-driver'] }).operands[1];
      if (file !== undefined && file.value !== '-') context.file('read', file, `docker ${subcommand} create`);
    } else if (subcommand === 'save' || subcommand === 'export') reportEach(context, 'write', parseArguments(rest, { short: 'o', long: ['output', 'platform'] }).values('-o', '--output'), `docker ${subcommand} --output`);
  },
};

/** `container:path` is inside a container; anything else is a host path. */
function isContainerPath(word: Word): boolean {
  return word.value !== undefined && /^[A-Za-z0-9][A-Za-z0-9_.-]*:/.test(word.value) && !word.value.startsWith('/');
}

function copy(context: CommandContext, words: readonly Word[]): void {
  const parsed = parseArguments(words);
  const [source, destination] = parsed.operands;
  if (source !== undefined && !isContainerPath(source)) context.file('read', source, 'docker cp source', { recursive: true });
  if (destination !== undefined && !isContainerPath(destination)) context.file('write', destination, 'docker cp destination', { recursive: true });
}

function build(context: CommandContext, words: readonly Word[]): void {
  // `--sbom` and `--provenance` may stand alone (`--sbom .`): listed as taking a value, they hid the context directory.
  const parsed = parseArguments(words, {
    short: 'ftmo',
    long: ['file', 'tag', 'build-arg', 'target', 'platform', 'label', 'network', 'cache-from', 'cache-to', 'progress', 'ssh', 'secret', 'iidfile', 'output', 'build-context', 'add-host', 'shm-size', 'ulimit', 'memory', 'cpuset-cpus', 'isolation', 'metadata-file', 'builder', 'allow', 'annotation', 'attest', 'call'],
  });
  reportEach(context, 'read', parsed.values('-f', '--file'), 'docker build --file');
  reportEach(context, 'write', parsed.values('--iidfile', '--metadata-file'), 'docker build output file');
  for (const secret of parsed.values('--secret')) {
    const source = secret.value !== undefined ? /(?:^|,)(?:src|source)=([^,]+)/.exec(secret.value)?.[1] : undefined;
    if (source !== undefined) context.file('read', staticWord(source), 'docker build --secret');
    else if (secret.value === undefined) context.file('read', secret, 'docker build --secret');
  }
  for (const buildContext of parsed.values('--build-context')) {
    const path = buildContext.value?.slice(buildContext.value.indexOf('=') + 1);
    if (path !== undefined && !isUrl(path) && !path.includes('://') && !path.startsWith('docker-image:')) context.file('read', staticWord(path), 'docker build --build-context', { recursive: true });
  }
  for (const output of parsed.values('-o', '--output')) {
    const dest = output.value !== undefined ? (/(?:^|,)dest=([^,]+)/.exec(output.value)?.[1] ?? (output.value.includes('=') ? undefined : output.value)) : undefined;
    if (dest !== undefined) context.file('write', staticWord(dest), 'docker build --output', { recursive: true });
  }
  const contextDirectory = parsed.operands[parsed.operands.length - 1];
  if (contextDirectory !== undefined && !(contextDirectory.value !== undefined && isUrl(contextDirectory.value))) context.file('read', contextDirectory, 'docker build context', { recursive: true });
}

function run(context: CommandContext, words: readonly Word[]): void {
  // `-i` (--interactive) is a flag: taken as value-taking it hid the `-v` after it.
  const parsed = parseArguments(words, { short: 'veplwuhmac', long: RUN_VALUE_LONG, stopAtOperand: true });
  reportEach(context, 'read', parsed.values('--env-file', '--label-file'), 'docker run option file');
  reportEach(context, 'write', parsed.values('--cidfile'), 'docker run --cidfile');
  for (const volume of parsed.values('-v', '--volume')) bindMount(context, volume, 'docker run --volume');
  for (const mount of parsed.values('--mount')) {
    if (mount.value === undefined) {
      context.file('read', mount, 'docker run --mount', { recursive: true });
      continue;
    }
    const fields = new Map(mount.value.split(',').map((field) => [field.split('=')[0] ?? '', field.slice(field.indexOf('=') + 1)] as const));
    const source = fields.get('source') ?? fields.get('src');
    const type = fields.get('type') ?? 'volume';
    if (type !== 'bind' || source === undefined) continue;
    const readOnly = mount.value.split(',').some((field) => field === 'readonly' || field === 'ro' || field === 'readonly=true' || field === 'ro=true');
    context.file('read', staticWord(source), 'docker run --mount', { recursive: true });
    if (!readOnly) context.file('write', staticWord(source), 'docker run --mount', { recursive: true });
  }
}

/** `-v host:container[:ro]`: a host path (not a named volume) shared with the container. */
function bindMount(context: CommandContext, volume: Word, via: string): void {
  if (volume.value === undefined) {
    context.file('read', volume, via, { recursive: true });
    return;
  }
  const [host = '', , mode = ''] = volume.value.split(':');
  if (!host.startsWith('/') && !host.startsWith('.') && !host.startsWith('~')) return;
  context.file('read', staticWord(host), via, { recursive: true });
  if (!mode.split(',').includes('ro')) context.file('write', staticWord(host), via, { recursive: true });
}

/**
 * compose reads its files and, unless `--env-file` names others, the `.env` of the project
 * directory, whose values it interpolates (`docker compose config` prints them). The `env_file:`
 * entries inside a compose file are content this analysis does not read.
 */
function compose(context: CommandContext, words: readonly Word[]): void {
  const parsed = parseArguments(words, { short: 'fp', long: ['file', 'project-name', 'env-file', 'project-directory', 'profile', 'ansi', 'parallel', 'progress'], stopAtOperand: true });
  reportEach(context, 'read', parsed.values('-f', '--file', '--env-file'), 'docker compose option file');
  if (parsed.has('--env-file')) return;
  const file = parsed.values('-f', '--file')[0];
  const directory = parsed.last('--project-directory') ?? (file?.value !== undefined && file.value !== '-' ? staticWord(posix.dirname(file.value)) : file);
  reportEnvFiles(context, DOTENV_FILE, 'docker compose .env', directory);
}

export const DOCKER_COMMANDS: Record<string, CommandConvention> = {
  docker: DOCKER,
  podman: DOCKER,
  'docker-compose': { handler: (context) => compose(context, argumentsOf(context)) },
  'podman-compose': { handler: (context) => compose(context, argumentsOf(context)) },
};
