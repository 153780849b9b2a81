import type { GlobOptions } from './glob-expansion.js';
import type { Word } from './word-expansion.js';

/**
 * How a command line changes what its globs match: `shopt -s dotglob; cat *` reads `.env`, and
 * so do `GLOBIGNORE=x; cat *`, zsh's `setopt globdots`, and `bash -O dotglob -c 'cat *'`;
 * `shopt -s nocaseglob; cat .EN*` reads `.env` too. These are builtins and variables of the shell
 * itself, so they are read here, with the shell's state, not with the programs' conventions. An
 * option name known only at run time (`shopt -s "$O"`) may be either: both are assumed on, so a
 * glob then matches every name it could match.
 */

const EVERYTHING: GlobOptions = { dot: true, caseless: true };

/** The options after `program args` ran, when `program` is a builtin that sets shell options; undefined otherwise. */
export function globOptionsAfterBuiltin(program: string, args: readonly Word[], current: GlobOptions): GlobOptions | undefined {
  switch (program) {
    case 'shopt':
      return shopt(args, current);
    case 'setopt':
    case 'unsetopt':
      return args.reduce((options, word) => zshOption(word.value, program === 'setopt', options), current);
    case 'set':
      return setOptions(args, current);
    default:
      return undefined;
  }
}

/** The options a shell started with `args` begins with: bash's `-O name`/`+O name`, `-o name` (zsh's options too). */
export function globOptionsOfShellArguments(args: readonly Word[], current: GlobOptions): GlobOptions {
  let options = current;
  for (let index = 0; index + 1 < args.length; index += 1) {
    const flag = args[index]?.value;
    const name = args[index + 1] as Word;
    if (flag === '-O' || flag === '+O') options = bashOption(name.value, flag === '-O', options);
    else if (flag === '-o' || flag === '+o') options = zshOption(name.value, flag === '-o', options);
  }
  return options;
}

/**
 * The options after assigning `name`: a GLOBIGNORE that is set makes wildcards match a leading
 * `.` (bash), and BASHOPTS in the environment of a bash sets its shopt options at start.
 */
export function globOptionsAfterAssignment(name: string, current: GlobOptions): GlobOptions {
  if (name === 'GLOBIGNORE') return { ...current, dot: true };
  if (name === 'BASHOPTS') return EVERYTHING;
  return current;
}

/** `shopt -s name…`, `shopt -u name…`; without either it only prints or queries. */
function shopt(args: readonly Word[], current: GlobOptions): GlobOptions {
  let on: boolean | undefined;
  let setNames = false;
  const names: Word[] = [];
  for (const word of args) {
    const value = word.value;
    if (value !== undefined && /^-[supqo]+$/.test(value)) {
      if (value.includes('s')) on = true;
      if (value.includes('u')) on = false;
      if (value.includes('o')) setNames = true;
    } else names.push(word);
  }
  if (on === undefined) return current;
  const enable = on;
  return names.reduce((options, word) => (setNames ? zshOption(word.value, enable, options) : bashOption(word.value, enable, options)), current);
}

/** `set -o name`, `set +o name` (zsh accepts any of its options there; bash has no glob option in `set -o`). */
function setOptions(args: readonly Word[], current: GlobOptions): GlobOptions {
  let options = current;
  for (let index = 0; index + 1 < args.length; index += 1) {
    const flag = args[index]?.value;
    if (flag === '-o' || flag === '+o') options = zshOption(args[index + 1]?.value, flag === '-o', options);
  }
  return options;
}

function bashOption(name: string | undefined, on: boolean, current: GlobOptions): GlobOptions {
  if (name === undefined) return EVERYTHING;
  if (name === 'dotglob') return { ...current, dot: on };
  if (name === 'nocaseglob') return { ...current, caseless: on };
  return current;
}

/** zsh ignores case and underscores in option names, and `no` in front negates: `NO_CASE_GLOB`, `globdots`, `DOT_GLOB`. */
function zshOption(name: string | undefined, on: boolean, current: GlobOptions): GlobOptions {
  if (name === undefined) return EVERYTHING;
  let normalized = name.toLowerCase().replace(/_/g, '');
  let enable = on;
  if (normalized.startsWith('no') && normalized !== 'notify') {
    normalized = normalized.slice(2);
    enable = !enable;
  }
  if (normalized === 'globdots' || normalized === 'dotglob') return { ...current, dot: enable };
  if (normalized === 'caseglob') return { ...current, caseless: !enable };
  return current;
}
