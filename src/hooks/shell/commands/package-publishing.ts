import { posix } from 'node:path';
import { parseArguments, staticWord, type ParsedOption } from '../argument-parser.js';
import type { CommandContext } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { reportEach } from './operands.js';
import { PACKAGE_MANAGER_SHORT_VALUES as SHORT_VALUES, PACKAGE_MANAGER_VALUE_OPTIONS as VALUE_OPTIONS, WORKSPACE_FLAGS } from './package-scripts.js';

/**
 * `npm publish` and `npm pack` (pnpm's and yarn's too) put a package directory into a tarball,
 * and publish sends it to a registry for anyone to download: a `.env` beside package.json goes
 * with it unless the package leaves it out. So each is a read of the package directory as a tree,
 * less what npm leaves out (`skips: 'npm'`, src/hooks/npm-packed.ts). `npm publish x.tgz` reads
 * that tarball; a package name (`npm pack lodash`) reads nothing here.
 */

interface Packaging {
  kind: 'publish' | 'pack';
  /** Every option, before the subcommand or after it (`npm --prefix pkg publish`). */
  options: readonly ParsedOption[];
  /** The words after the subcommand that are not options: a folder, a tarball or a package name. */
  operands: readonly Word[];
}

/** The subcommand, when it makes a package: `publish` or `pack` (yarn berry's `yarn npm publish` too). */
export function packageCommand(words: readonly Word[]): Packaging | undefined {
  const parsed = parseArguments(words, { short: SHORT_VALUES, long: VALUE_OPTIONS, stopAtOperand: true });
  let [subcommand, ...rest] = parsed.operands;
  if (subcommand?.value === 'npm' && rest[0]?.value === 'publish') [subcommand, ...rest] = rest;
  const kind = subcommand?.value === undefined ? undefined : packagingSubcommand(subcommand.value);
  if (kind === undefined) return undefined;
  const after = parseArguments(rest, { short: SHORT_VALUES, long: VALUE_OPTIONS });
  return { kind, options: [...parsed.options, ...after.options], operands: after.operands };
}

/** npm takes any unambiguous abbreviation of a command (`npm pub`); `pu…` and `pa…` can only be these two. */
function packagingSubcommand(word: string): 'publish' | 'pack' | undefined {
  if (word.length >= 2 && 'publish'.startsWith(word)) return 'publish';
  if (word.length >= 2 && 'pack'.startsWith(word)) return 'pack';
  return undefined;
}

export function reportPackaging(context: CommandContext, command: Packaging): void {
  const via = `${context.program} ${command.kind}`;
  const directoryOptions = command.options.filter((option) => ['-C', '--dir', '--cwd', '--prefix'].includes(option.name)).flatMap((option) => (option.value === undefined ? [] : [option.value]));
  const places = [...directoryOptions, ...command.operands];
  const local = places.filter((word) => word.value === undefined || context.kindOf(word) !== undefined);
  for (const word of local.filter((place) => place.value === undefined || context.kindOf(place) === 'file')) context.file('read', word, `${via} (tarball)`);
  const directories = local.filter((place) => place.value !== undefined && context.kindOf(place) === 'directory');
  const packages = directories.length > 0 || places.length > local.length ? directories : [staticWord('.')];
  // A workspace package follows its own package.json and ignore files, not the root's: every file counts.
  const workspaces = command.options.some((option) => WORKSPACE_FLAGS.includes(option.name));
  reportEach(context, 'read', packages, `${via} (package directory)`, workspaces ? { recursive: true } : { recursive: true, skips: 'npm' });
}

/**
 * `npm config set|delete|edit` (pnpm's and yarn's too) writes the settings file of the chosen
 * location: the user's `~/.npmrc` by default, the project's `.npmrc` with `--location project`;
 * yarn 2+ writes the project's `.yarnrc.yml` (the home one with `-H`), yarn 1 `~/.yarnrc`. Those
 * files decide how the package.json scripts svc follows are run (`script-shell`), hence guarded.
 */
export function reportConfigWrites(context: CommandContext, words: readonly Word[]): void {
  const parsed = parseArguments(words, { short: `${SHORT_VALUES}L`, long: [...VALUE_OPTIONS, 'location'] });
  const [subcommand, action] = parsed.operands.map((word) => word.value);
  if ((subcommand !== 'config' && subcommand !== 'c') || !['set', 'delete', 'rm', 'edit', 'unset'].includes(action ?? '')) return;
  const location = parsed.options.find((option) => option.name === '--location' || option.name === '-L')?.value?.value;
  const via = `${context.program} config ${action}`;
  if (parsed.has('-g', '--global') || location === 'global') {
    // The global settings file lives under the installation's prefix, which is not known here.
    context.dynamic('write', 'the global npmrc', 'unsupported', via);
    return;
  }
  const home = context.home;
  const inHome = (name: string): Word => (home === undefined ? { value: undefined, text: `~/${name}`, reason: 'variable' } : staticWord(posix.join(home, name)));
  const files = context.program === 'yarn' ? [staticWord('.yarnrc.yml'), inHome('.yarnrc.yml'), inHome('.yarnrc')] : location === 'project' ? [staticWord('.npmrc')] : [inHome('.npmrc')];
  reportEach(context, 'write', files, via);
}
