import type { CommandConvention } from '../command-context.js';
import { ARCHIVES } from './archives.js';
import { DATABASE_CLIENTS } from './database-clients.js';
import { DETACHED_RUNNERS } from './detached-runners.js';
import { DIRECTORY_CHANGES } from './directory-changes.js';
import { DOCKER_COMMANDS } from './docker.js';
import { EMBEDDED_COMMANDS } from './embedded-commands.js';
import { FILE_READERS, SORT } from './file-readers.js';
import { FILE_TRANSFER } from './file-transfer.js';
import { FILE_WRITERS } from './file-writers.js';
import { FIND } from './find.js';
import { GIT_COMMANDS } from './git.js';
import { GITHUB_CLI } from './github-cli.js';
import { INCLUDE_PROCESSORS } from './include-processors.js';
import { INTERPRETERS, interpreterName } from './interpreters.js';
import { KUBERNETES } from './kubernetes.js';
import { MOUNTS } from './mounts.js';
import { NETWORK_CLIENTS } from './network-clients.js';
import { NO_FILE_COMMANDS } from './no-file-commands.js';
import { SHELLS } from './shells.js';
import { SPLIT_OUTPUTS } from './split-outputs.js';
import { TEXT_SEARCH } from './text-search.js';
import { SERVERS } from './servers.js';
import { RESPONSE_FILE_COMMANDS, UNKNOWN_PROGRAM } from './unknown-program.js';
import { WRAPPERS } from './wrappers.js';

/** Every program the analysis has conventions for, by file name. */
const CONVENTIONS = new Map<string, CommandConvention>(
  Object.entries({
    ...NO_FILE_COMMANDS,
    ...RESPONSE_FILE_COMMANDS,
    ...FILE_READERS,
    ...INCLUDE_PROCESSORS,
    ...SPLIT_OUTPUTS,
    sort: SORT,
    ...TEXT_SEARCH,
    ...FILE_WRITERS,
    ...FILE_TRANSFER,
    ...ARCHIVES,
    ...MOUNTS,
    ...NETWORK_CLIENTS,
    ...GIT_COMMANDS,
    ...GITHUB_CLI,
    ...DOCKER_COMMANDS,
    ...KUBERNETES,
    ...EMBEDDED_COMMANDS,
    ...DATABASE_CLIENTS,
    find: FIND,
    ...WRAPPERS,
    ...SERVERS,
    ...DETACHED_RUNNERS,
    ...SHELLS,
    ...INTERPRETERS,
    ...DIRECTORY_CHANGES,
  }),
);

/** The conventions of `program` (a file name: `cat`, `python3.12`), or the unknown-program heuristic. */
export function conventionFor(program: string): CommandConvention {
  return CONVENTIONS.get(program) ?? CONVENTIONS.get(interpreterName(program) ?? '') ?? UNKNOWN_PROGRAM;
}

export { UNKNOWN_PROGRAM };
