import { posix } from 'node:path';
import { parseArguments, staticWord } from '../argument-parser.js';
import type { CommandContext } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { shellJoin } from './operands.js';

/**
 * npm, pnpm, yarn and bun run the scripts of package.json as shell command lines, in the
 * package's directory: `npm test` runs `pretest`, `test` and `posttest`, `npm install` the install
 * and prepare scripts, `yarn build` the `build` script. What they hold is followed as code, as a
 * shell script file is (script-files.ts): otherwise `"test": "cat .env"` written into package.json
 * by one tool call, then `npm test` in the next, would read the secret where no hook sees it.
 * pre- and post- scripts are followed for every manager (npm runs them; pnpm and yarn 2+ only when
 * configured to, which this cannot see).
 */

/** Options of npm, pnpm and yarn that take a value, so that `npm --prefix x test` is a test. */
export const PACKAGE_MANAGER_VALUE_OPTIONS = ['tag', 'access', 'otp', 'registry', 'prefix', 'workspace', 'filter', 'cache', 'userconfig', 'loglevel', 'pack-destination', 'out', 'provenance-file', 'publish-branch', 'report-summary', 'dir', 'cwd', 'scope', 'script-shell'];
export const PACKAGE_MANAGER_SHORT_VALUES = 'wCF';

const RUN_WORDS = new Set(['run', 'run-script', 'rum', 'urn']);
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare'];

/** `main`: the script that what follows `--` is passed to. */
interface Lifecycle {
  scripts: readonly string[];
  main?: string;
}

const INSTALL: Lifecycle = { scripts: INSTALL_SCRIPTS };
const TEST: Lifecycle = { scripts: ['pretest', 'test', 'posttest'], main: 'test' };
const INSTALL_TEST: Lifecycle = { scripts: [...INSTALL_SCRIPTS, ...TEST.scripts], main: 'test' };

/** The scripts a subcommand runs by itself, in order. */
const LIFECYCLES: ReadonlyMap<string, Lifecycle> = new Map(Object.entries({
  install: INSTALL,
  i: INSTALL,
  add: INSTALL,
  ci: INSTALL,
  'install-test': INSTALL_TEST,
  it: INSTALL_TEST,
  'install-ci-test': INSTALL_TEST,
  cit: INSTALL_TEST,
  test: TEST,
  t: TEST,
  tst: TEST,
  start: { scripts: ['prestart', 'start', 'poststart'], main: 'start' },
  stop: { scripts: ['prestop', 'stop', 'poststop'], main: 'stop' },
  restart: { scripts: ['prerestart', 'restart', 'postrestart', 'prestop', 'stop', 'poststop', 'prestart', 'start', 'poststart'], main: 'restart' },
  pack: { scripts: ['prepack', 'prepare', 'postpack'] },
  publish: { scripts: ['prepublishOnly', 'prepack', 'prepare', 'postpack', 'publish', 'postpublish'] },
  version: { scripts: ['preversion', 'version', 'postversion'] },
}));

/** Flags that run the scripts of other packages of a workspace, each with a package.json of its own. */
export const WORKSPACE_FLAGS = ['-w', '--workspace', '--workspaces', '--filter', '-F', '-r', '--recursive'];

/** npm, pnpm, yarn: the scripts `words` (after the program name) make the manager run. */
export function followPackageScripts(context: CommandContext, words: readonly Word[]): void {
  const parsed = parseArguments(words, { short: PACKAGE_MANAGER_SHORT_VALUES, long: PACKAGE_MANAGER_VALUE_OPTIONS, stopAtOperand: true });
  const [first, ...rest] = parsed.operands;
  if (first !== undefined && first.value === undefined) {
    context.dynamic('execute', shellJoin([context.argv[0] as Word, ...words]), first.reason, `${context.program} (a subcommand known only at run time)`);
    return;
  }
  // Bare `yarn` installs.
  const subcommand = first === undefined ? (context.program === 'yarn' ? 'install' : undefined) : first.value;
  if (subcommand === undefined || subcommand === 'exec' || subcommand === 'x' || subcommand === 'dlx' || subcommand === 'explore') return;
  const options = [...parsed.options, ...parseArguments(rest, { short: PACKAGE_MANAGER_SHORT_VALUES, long: PACKAGE_MANAGER_VALUE_OPTIONS }).options];
  if (subcommand === 'workspace' || subcommand === 'workspaces' || options.some((option) => WORKSPACE_FLAGS.includes(option.name))) {
    context.dynamic('execute', shellJoin([context.argv[0] as Word, ...words]), 'interpreter_code', `${context.program} (the scripts of workspace packages)`);
    return;
  }
  const directory = options.find((option) => ['--prefix', '-C', '--dir', '--cwd'].includes(option.name))?.value;
  // `--script-shell ./x.sh`: every script runs through that program instead of sh.
  for (const option of options) if (option.name === '--script-shell' && option.value !== undefined) context.file('execute', option.value, `${context.program} --script-shell`, { runner: 'kernel' });
  if (RUN_WORDS.has(subcommand)) {
    // The script's name is the first word that is not an option; every word after it counts as passed to the script (npm wants a `--` first, yarn and pnpm do not).
    const at = rest.findIndex((word) => word.value === undefined || !word.value.startsWith('-'));
    const name = rest[at];
    if (name !== undefined) runPackageScript(context, name, rest.slice(at + 1), directory);
    return;
  }
  const lifecycle = LIFECYCLES.get(subcommand);
  // `npm test -- --watch`, `yarn test --watch`: the words after the subcommand go to the test or start script itself.
  const passed = rest.filter((word) => word.value !== '--');
  // `yarn build`, `pnpm lint`: a name that is not a subcommand of the manager runs that script.
  if (lifecycle !== undefined) runScripts(context, lifecycle.scripts, lifecycle.main, passed, directory);
  else if (context.program !== 'npm') runPackageScript(context, first as Word, rest, directory, true);
}

/**
 * `npm run NAME ARGS`, `bun run NAME`: pre<NAME>, NAME with ARGS appended (without a `--`), post<NAME>.
 * `onlyIfScript`: the name may be something else than a script (`yarn outdated`), so nothing is
 * run when package.json has no script of that name.
 */
export function runPackageScript(context: CommandContext, name: Word, args: readonly Word[], directory?: Word, onlyIfScript = false): void {
  if (name.value === undefined) {
    context.dynamic('execute', name.text, name.reason, `${context.program} run (a script named only at run time)`);
    return;
  }
  const passed = args.filter((word) => word.value !== '--');
  runScripts(context, [`pre${name.value}`, name.value, `post${name.value}`], name.value, passed, directory, onlyIfScript);
}

function runScripts(context: CommandContext, names: readonly string[], main: string | undefined, args: readonly Word[], directory: Word | undefined, onlyIfScript = false): void {
  const manifest = findManifest(context, directory);
  if (manifest === undefined) return;
  const via = `${context.program} (package.json scripts)`;
  if (manifest.scripts === undefined) {
    // The text is the path, as for a script file that cannot be followed: one operation, however many ways the line runs it.
    context.dynamic('execute', manifest.file, 'interpreter_code', `${via}: a package.json svc cannot read, or one this line writes`);
    return;
  }
  if (onlyIfScript && (main === undefined || !manifest.scripts.has(main))) return;
  for (const name of names) {
    const script = manifest.scripts.get(name);
    if (script === undefined) continue;
    const code = name === main && args.length > 0 ? `${script} ${shellJoin(args)}` : script;
    context.script(code, `${context.program} script "${name}" of ${manifest.file}`, { cwd: staticWord(posix.dirname(manifest.file)) });
  }
}

/**
 * The package.json npm would use: in `directory`, else the nearest at or above the working
 * directory; `scripts` undefined when it cannot be read (or where it is, is known only at run time).
 */
function findManifest(context: CommandContext, directory: Word | undefined): { file: string; scripts?: ReadonlyMap<string, string> } | undefined {
  if (directory !== undefined && directory.value === undefined) return { file: `${directory.text}/package.json` };
  const start = context.absolute(staticWord(directory?.value ?? '.'));
  if (start === undefined) return { file: 'package.json' };
  for (let dir = start; ; dir = posix.dirname(dir)) {
    const file = posix.join(dir, 'package.json');
    const text = context.projectFile(staticWord(file));
    if (text === 'unknown') return { file };
    if (text !== undefined) return { file, scripts: scriptsOf(text) };
    if (directory !== undefined || dir === '/') return undefined;
  }
}

/** The string-valued entries of `scripts`; a package.json that is not JSON makes the manager stop before running any. */
function scriptsOf(text: string): ReadonlyMap<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return new Map();
  }
  const scripts = typeof parsed === 'object' && parsed !== null ? (parsed as { scripts?: unknown }).scripts : undefined;
  if (typeof scripts !== 'object' || scripts === null) return new Map();
  return new Map(Object.entries(scripts).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
