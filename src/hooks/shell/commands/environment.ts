import { staticWord } from '../argument-parser.js';
import type { CommandContext } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { GIT_CODE_SETTINGS, GIT_INCLUDE_SETTINGS, trackedFilesRead } from './git.js';

/**
 * Environment variables whose value is code or a file some program runs: `GIT_EXTERNAL_DIFF='cat
 * .env;' git diff` and `BASH_ENV=.env bash -c :` read a secret though the command's words name
 * none. An assignment to one of them — before a command, through `env`, or (when the script
 * walker passes it) `export`/`declare`/a plain assignment, since an already exported variable
 * stays exported — is reported here, whether or not the program that follows uses it.
 */
export interface EnvironmentAssignment {
  name: string;
  value: Word;
}

type Meaning =
  /** Shell code a program runs through `sh -c` (an editor, a pager, a diff or ssh command): parsed like `sh -c`. */
  | 'shell'
  /** A file a shell reads and runs at start-up. */
  | 'sourced'
  /** A program path run as it is (not through a shell). */
  | 'program'
  /** Shared libraries loaded into every program, `:`/space separated. */
  | 'libraries'
  /** lesspipe-style input filters: `|cmd %s`, `||cmd %s`, `-cmd`. */
  | 'filter'
  /** A prompt string, expanded (with `$(…)`) each time it is shown. */
  | 'prompt'
  /** Interpreter options that may load code (`--require ./x.js`, `-Mmodule`). */
  | 'options'
  /** A git configuration file, which may set commands (core.pager, alias.*). */
  | 'git-config'
  /**
   * Where git finds a repository (`GIT_DIR`, `GIT_COMMON_DIR`) or its user config
   * (`XDG_CONFIG_HOME/git/config`): a config file no guard covers, which may set commands.
   */
  | 'git-config-location'
  /** A file git appends its traces to when the value is an absolute path (`GIT_TRACE=/abs/file`). */
  | 'trace-file'
  /**
   * A file the shell itself reads and writes under that name: HISTFILE, which `history -r` (and
   * `-n`) loads into the list `history` prints, and `history -w`/`-a` and an exiting interactive
   * shell write (`HISTFILE=.env; history -r; history` prints .env).
   */
  | 'history-file'
  /**
   * The tree git works on instead of the working directory's (`GIT_WORK_TREE=~/.ssh git add -A`
   * stages ~/.ssh, which `git diff --cached` then prints): read and written as a whole, like
   * `--work-tree`.
   */
  | 'git-work-tree'
  /** A file of command-line options (ripgrep's, curl's .curlrc, a wgetrc), which may widen what the program reads: `--hidden`, `upload-file = .env`. */
  | 'options-file'
  /**
   * Where git takes programs or hooks from: `GIT_EXEC_PATH` (`git zz` runs `$GIT_EXEC_PATH/git-zz`),
   * `GIT_TEMPLATE_DIR` (hooks `git init`/`clone` copy into `.git/hooks`, as `--template`).
   */
  | 'git-programs'
  /** Where a starting program loads code from: ZDOTDIR (zsh runs its .zshenv even for `zsh -c`), GCONV_PATH (iconv's modules). */
  | 'code-directory'
  /** A file a starting program reads and may quote in an error: INPUTRC (readline prints the lines it cannot parse). */
  | 'read-file'
  /** man's options from the environment: `-P`/`--pager` and `-H`/`--html` are commands it runs. */
  | 'man-options';

const VARIABLES: Record<string, Meaning> = {
  GIT_EXTERNAL_DIFF: 'shell',
  GIT_PAGER: 'shell',
  PAGER: 'shell',
  MANPAGER: 'shell',
  SYSTEMD_PAGER: 'shell',
  GIT_EDITOR: 'shell',
  GIT_SEQUENCE_EDITOR: 'shell',
  EDITOR: 'shell',
  VISUAL: 'shell',
  GIT_SSH_COMMAND: 'shell',
  GIT_PROXY_COMMAND: 'shell',
  GH_EDITOR: 'shell',
  GH_PAGER: 'shell',
  GH_BROWSER: 'shell',
  BROWSER: 'shell',
  PROMPT_COMMAND: 'shell',
  BASH_ENV: 'sourced',
  ENV: 'sourced',
  GIT_SSH: 'program',
  GIT_ASKPASS: 'program',
  SSH_ASKPASS: 'program',
  SUDO_ASKPASS: 'program',
  // The shell screen, tmux, script, make and editors start (`SHELL=./x.sh screen -dm`).
  SHELL: 'program',
  // The shell npm and pnpm run package.json scripts with; yarn 1 runs the yarn it names.
  npm_config_script_shell: 'program',
  NPM_CONFIG_SCRIPT_SHELL: 'program',
  YARN_YARN_PATH: 'program',
  npm_config_node_options: 'options',
  NPM_CONFIG_NODE_OPTIONS: 'options',
  LD_PRELOAD: 'libraries',
  LD_AUDIT: 'libraries',
  DYLD_INSERT_LIBRARIES: 'libraries',
  LESSOPEN: 'filter',
  LESSCLOSE: 'filter',
  PS0: 'prompt',
  PS1: 'prompt',
  PS2: 'prompt',
  PS4: 'prompt',
  NODE_OPTIONS: 'options',
  // Options every JVM (or the java launcher) adds to its own: `@file` expands a file (whose lines an
  // unknown-option error prints), `-javaagent:` loads code.
  JDK_JAVA_OPTIONS: 'options',
  JAVA_TOOL_OPTIONS: 'options',
  _JAVA_OPTIONS: 'options',
  PERL5OPT: 'options',
  RUBYOPT: 'options',
  GIT_CONFIG: 'git-config',
  GIT_CONFIG_GLOBAL: 'git-config',
  GIT_CONFIG_SYSTEM: 'git-config',
  GIT_DIR: 'git-config-location',
  GIT_COMMON_DIR: 'git-config-location',
  XDG_CONFIG_HOME: 'git-config-location',
  GIT_WORK_TREE: 'git-work-tree',
  HISTFILE: 'history-file',
  RIPGREP_CONFIG_PATH: 'options-file',
  // curl reads $CURL_HOME/.curlrc, wget the wgetrc WGETRC names: options that may name any file to upload.
  CURL_HOME: 'options-file',
  WGETRC: 'options-file',
  GIT_EXEC_PATH: 'git-programs',
  GIT_TEMPLATE_DIR: 'git-programs',
  ZDOTDIR: 'code-directory',
  GCONV_PATH: 'code-directory',
  INPUTRC: 'read-file',
  MANOPT: 'man-options',
};

/**
 * Settings whose value is shell code git runs through `sh -c`, as the GIT_PAGER, GIT_EDITOR,
 * GIT_SSH_COMMAND variables are: given by environment, their value is followed as a script. Any
 * other code setting (core.hooksPath, core.fsmonitor, alias.*, credential.helper, …) is a
 * directory, program or git command that is not: dynamic code, as with `git -c`.
 */
const GIT_SHELL_SETTINGS = /^(?:core\.(?:pager|editor|sshcommand)|sequence\.editor|diff\.external|pager\..+)$/i;

/** Options in NODE_OPTIONS, PERL5OPT, RUBYOPT that load a module or a file. */
const LOADING_OPTIONS = /(?:^|\s)(?:--(?:require|import|loader|experimental-loader|env-file|env-file-if-exists)\b|-[rM])/;

/** JVM options that load code: agents, and commands run on an error. */
const JVM_LOADING_OPTIONS = /(?:^|\s)-(?:javaagent|agentlib|agentpath|XX:OnError|XX:OnOutOfMemoryError)[:=]/;

/**
 * `BASH_FUNC_name%%` (and the older `BASH_FUNC_name()`): a function a starting bash imports from
 * its environment, so its value is shell code (`env 'BASH_FUNC_ls%%=() { cat .env; }' bash -c ls`).
 */
const EXPORTED_FUNCTION = /^BASH_FUNC_.+(?:%%|\(\))$/;

/** GIT_TRACE, GIT_TRACE2_EVENT, GIT_TRACE_PACKFILE, …: a trace target each. */
const GIT_TRACE = /^GIT_TRACE\w*$/;

/** What a variable's value means to the programs that read it, if it is code or files. */
function meaningOf(name: string): Meaning | 'function' | undefined {
  if (Object.hasOwn(VARIABLES, name)) return VARIABLES[name];
  if (EXPORTED_FUNCTION.test(name)) return 'function';
  if (GIT_TRACE.test(name)) return 'trace-file';
  return undefined;
}

/** True for a variable whose value is code or files a later program runs (the table above). */
export function carriesCode(name: string): boolean {
  return meaningOf(name) !== undefined;
}

/** Reports what assigning these variables makes the command (or the commands after it) do. */

export function reportEnvironment(context: CommandContext, assignments: readonly EnvironmentAssignment[]): void {
  for (const { name, value } of assignments) {
    const via = `${name} environment variable`;
    const meaning = meaningOf(name);
    if (meaning === 'function') {
      exportedFunction(context, value, via);
      continue;
    }
    if (meaning !== undefined) {
      reportVariable(context, meaning, value, via);
      continue;
    }
    // GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='cat .env': `git -c` by environment.
    const gitValue = /^GIT_CONFIG_VALUE_(\d+)$/.exec(name);
    if (gitValue !== null) {
      const key = assignments.find((assignment) => assignment.name === `GIT_CONFIG_KEY_${gitValue[1]}`)?.value;
      // `include.path`: another config file, which may set anything; a key not known here may be one.
      const keyName = key?.value;
      if (keyName === undefined || GIT_INCLUDE_SETTINGS.test(keyName)) context.dynamic('execute', value.value ?? value.text, value.value === undefined ? value.reason : 'interpreter_code', `${via} (a git setting that may name a config file)`);
      else if (GIT_SHELL_SETTINGS.test(keyName)) reportVariable(context, 'shell', value, via);
      // `alias.x='!cmd'`: shell code; any other alias runs a git command (`-c`'s reading: dynamic code).
      else if (/^alias\./i.test(keyName) && value.value?.startsWith('!') === true) reportVariable(context, 'shell', staticWord(value.value.slice(1)), via);
      else if (GIT_CODE_SETTINGS.test(keyName)) context.dynamic('execute', `${keyName}=${value.value ?? value.text}`, 'interpreter_code', `${via} (a git setting that runs a command)`);
      if (keyName === undefined) reportVariable(context, 'shell', value, via);
    } else if (/^GIT_CONFIG_KEY_\d+$/.test(name) && !assignments.some((assignment) => assignment.name === name.replace('KEY', 'VALUE'))) {
      // The value set elsewhere (an earlier export): the key alone says whether it runs a command.
      if (value.value === undefined) context.dynamic('execute', value.text, value.reason, via);
      else if (GIT_CODE_SETTINGS.test(value.value)) context.dynamic('execute', value.value, 'interpreter_code', `${via} (a git setting that runs a command)`);
    } else if (name === 'GIT_CONFIG_PARAMETERS') {
      context.dynamic('execute', value.value ?? value.text, value.value === undefined ? value.reason : 'interpreter_code', via);
    }
  }
}

function reportVariable(context: CommandContext, meaning: Meaning, value: Word, via: string): void {
  const text = value.value;
  // A prompt runs code only through a `$(…)` or `` `…` `` written in it, and only in an interactive
  // shell (or PS4 under `set -x`): `PS1="${_OLD_VIRTUAL_PS1:-}"` in a venv's activate is not code.
  if (meaning === 'prompt' && text === undefined && !value.text.includes('$(') && !value.text.includes('`')) return;
  if (text === undefined) {
    context.dynamic('execute', value.text, value.reason, via);
    return;
  }
  if (text === '') return;
  switch (meaning) {
    case 'shell':
      context.script(text, via);
      return;
    case 'sourced':
      // BASH_ENV, ENV: shell code the starting shell sources first.
      context.file('read', value, via);
      context.file('execute', value, via, { runner: 'same_shell' });
      return;
    case 'git-config':
      // What the file sets is not read here: any key in it may run a command (`GIT_CONFIG_GLOBAL=/dev/null` sets none).
      context.file('read', value, via);
      if (text !== '/dev/null') context.dynamic('execute', text, 'interpreter_code', `${via} (a git config file)`);
      return;
    case 'git-config-location':
      context.dynamic('execute', text, 'interpreter_code', `${via} (where git finds a config file no guard covers)`);
      return;
    case 'trace-file':
      // 1, 2, true: standard error; 3–9: a descriptor; an absolute path: that file, appended to.
      if (text.startsWith('/')) context.file('write', value, via);
      return;
    case 'program':
      context.file('execute', value, via, { runner: 'kernel' });
      return;
    case 'libraries':
      for (const library of text.split(/[:\s]+/)) if (library !== '') context.file('execute', staticWord(library), via);
      return;
    case 'filter':
      // `%s` stands for the file less opens (reported by less itself): `-` keeps it out of the filter's operations.
      context.script(text.replace(/^\|{1,2}|^-/, '').replaceAll('%s', '-'), via);
      return;
    case 'prompt':
      if (text.includes('$(') || text.includes('`')) context.dynamic('execute', text, 'interpreter_code', via);
      return;
    case 'options':
      if (LOADING_OPTIONS.test(text) || JVM_LOADING_OPTIONS.test(text)) context.dynamic('execute', text, 'interpreter_code', via);
      // `@file` (the java launcher's argument files): the file is read.
      for (const part of text.split(/\s+/)) if (part.length > 1 && part.startsWith('@')) context.file('read', staticWord(part.slice(1)), `${via} (@file)`);
      return;
    case 'git-programs':
      context.dynamic('execute', text, 'interpreter_code', `${via} (git runs programs or installs hooks from there)`);
      return;
    case 'git-work-tree':
      context.file('read', value, via, { recursive: true });
      context.file('write', value, via, { recursive: true });
      // As with `--work-tree`: the index of the repository here is compared with that tree.
      trackedFilesRead(context, via, 'untracked');
      return;
    case 'history-file':
      context.file('read', value, via);
      context.file('write', value, via);
      return;
    case 'options-file':
      context.file('read', value, via);
      context.dynamic('read', `files the options in ${text} may add`, 'unsupported', via);
      return;
    case 'code-directory':
      context.dynamic('execute', text, 'interpreter_code', `${via} (a program starting later loads code from there)`);
      return;
    case 'read-file':
      context.file('read', value, via);
      return;
    case 'man-options':
      if (/(?:^|\s)(?:-[^-\s]*[PH]|--pager|--html)/.test(text)) context.dynamic('execute', text, 'interpreter_code', `${via} (a pager or browser man runs)`);
      return;
  }
}

/**
 * `BASH_FUNC_f%%='() { cat .env; }'`: bash defines `f` from it when it starts (only a value that
 * starts with `() {`), and runs the body whenever the script calls `f`; the definition is
 * followed where the bash starts, as any function body is where it is defined.
 */
function exportedFunction(context: CommandContext, value: Word, via: string): void {
  if (value.value === undefined) {
    context.dynamic('execute', value.text, value.reason, via);
    return;
  }
  if (value.value.startsWith('() {')) context.script(`imported_function ${value.value}`, via);
}
