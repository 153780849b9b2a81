import { readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, isAbsolute, join } from 'node:path';
import { DEFAULT_CONFIG_FILE, parseConfig } from '../config/load-config.js';
import { SvcError } from '../errors.js';
import type { HookRuntime } from './hook-event.js';
import { installHook } from './install/index.js';

/**
 * `svc init`: makes a workspace ready for a coding agent behind svc. Each step leaves what is
 * already there alone (an existing svc.yml is kept, hook settings are merged, .gitignore gets one
 * line), so running it again changes nothing.
 */
export interface InitOptions {
  workspace: string;
  runtime: HookRuntime;
  /**
   * How the runtime starts svc, when the user says (`npx svc`). By default the node binary
   * running this process and `cliPath`, both absolute: a bare `svc` that is missing from the
   * agent's PATH exits 127, which the runtimes treat as a hook that did not object.
   */
  svcCommand?: string;
  /** The svc executable (dist/src/cli/svc.cjs) to run the hook with; without it (and without `svcCommand`), `svc` from PATH. */
  cliPath?: string;
  /** For the user-level settings checked for a switched-off hook (default: the home directory). */
  home?: string;
}

export interface InitStep {
  file: string;
  changed: boolean;
  what: string;
  /** Something the user must fix for the hook to protect anything. */
  warning?: string;
}

/**
 * Runtimes that run a hook command through a shell and block on exit 2: there `|| exit 2`
 * turns a hook that cannot start (node or svc gone: 127) into a refusal. Cursor blocks a
 * failed hook by itself (`failClosed`); Copilot ignores any hook that exits non-zero; Codex
 * does not document running the command through a shell, so nothing is appended there.
 */
const SHELL_FAIL_CLOSED = new Set<HookRuntime>(['claude-code', 'gemini']);

export async function initWorkspace(options: InitOptions): Promise<InitStep[]> {
  const steps: InitStep[] = [];
  const config = await writeConfigIfMissing(options.workspace);
  steps.push(config);
  const { command, powershell, warning } = hookCommand(options, config.file);
  const hook = await installHook(options.runtime, { workspace: options.workspace, command, powershellCommand: powershell });
  steps.push({ ...hook, what: hook.changed ? `added \`${command}\` to the ${options.runtime} hook settings` : `the ${options.runtime} hook is already set up`, ...(warning !== undefined && { warning }) });
  steps.push(await ignoreStateDirectory(options.workspace));
  if (options.runtime === 'claude-code') steps.push(...(await switchedOffHooks(options.workspace, options.home ?? homedir())));
  return steps;
}

/**
 * The hook command: svc started by absolute path, pinned to this workspace's svc.yml with
 * `--config` (without it the hook would look for a svc.yml from each call's cwd, and one
 * brought in with a cloned repository could answer for it), and where the runtime allows, a
 * fallback that refuses when the hook cannot run at all.
 */
function hookCommand(options: InitOptions, configFile: string): { command: string; powershell: string; warning?: string } {
  let start: string;
  let startPowershell: string;
  let warning: string | undefined;
  if (options.svcCommand !== undefined) {
    start = startPowershell = options.svcCommand;
    const program = options.svcCommand.trim().split(/\s+/)[0] ?? '';
    if (!isAbsolute(program)) warning = `the hook starts svc as \`${options.svcCommand}\`, found on the agent's PATH when it runs: if it is missing there the hook does not run`;
  } else if (options.cliPath !== undefined) {
    start = `${shellQuote(process.execPath)} ${shellQuote(options.cliPath)}`;
    startPowershell = `& ${powershellQuote(process.execPath)} ${powershellQuote(options.cliPath)}`;
  } else {
    start = startPowershell = 'svc';
    warning = 'svc could not find its own executable, so the hook starts `svc` from the agent\'s PATH: if it is missing there the hook does not run; run `svc init` from an installed svc';
  }
  const args = `hook ${options.runtime} --config`;
  const fallback = SHELL_FAIL_CLOSED.has(options.runtime) ? ' || exit 2' : '';
  return {
    command: `${start} ${args} ${shellQuote(configFile)}${fallback}`,
    powershell: `${startPowershell} ${args} ${powershellQuote(configFile)}`,
    ...(warning !== undefined && { warning }),
  };
}

const PLAIN_WORD = /^[\w@%+=:,./-]+$/;

function shellQuote(word: string): string {
  return PLAIN_WORD.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

function powershellQuote(word: string): string {
  return PLAIN_WORD.test(word) ? word : `'${word.replaceAll("'", "''")}'`;
}

/**
 * Claude Code skips every hook when a settings file it reads says `disableAllHooks: true`; the
 * hook svc just installed would then never run, so `svc init` says so instead of reporting a
 * protected workspace.
 */
async function switchedOffHooks(workspace: string, home: string): Promise<InitStep[]> {
  const files = [join(workspace, '.claude/settings.json'), join(workspace, '.claude/settings.local.json'), join(home, '.claude/settings.json')];
  const steps: InitStep[] = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    let disabled = false;
    try {
      disabled = (JSON.parse(text) as { disableAllHooks?: unknown }).disableAllHooks === true;
    } catch {
      // Not JSON: Claude Code cannot read it either, and the hook install reports the project file.
    }
    if (disabled) steps.push({ file, changed: false, what: 'disableAllHooks is true', warning: `${file} sets "disableAllHooks": true, so Claude Code runs no hook, svc's included: remove it` });
  }
  return steps;
}

async function writeConfigIfMissing(workspace: string): Promise<InitStep> {
  const file = join(workspace, DEFAULT_CONFIG_FILE);
  const existing = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw new SvcError('config_unreadable', `${file} cannot be read: ${error.message}`);
  });
  if (existing !== undefined) {
    parseConfig(existing, file); // an invalid existing file is reported, not overwritten
    return { file, changed: false, what: `kept the existing ${DEFAULT_CONFIG_FILE}` };
  }
  const text = configTemplate(tenantFor(workspace));
  parseConfig(text, file);
  await writeFile(`${file}.tmp`, text, { flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
    throw new SvcError('init_failed', `cannot write ${file}: ${error.message}`);
  });
  await rename(`${file}.tmp`, file);
  return { file, changed: true, what: `wrote ${DEFAULT_CONFIG_FILE} (protected paths on, risky commands need approval)` };
}

async function ignoreStateDirectory(workspace: string): Promise<InitStep> {
  const file = join(workspace, '.gitignore');
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw new SvcError('init_failed', `${file} cannot be read: ${error.message}`);
  });
  const ignored = text.split(/\r?\n/).some((line) => ['.svc', '.svc/', '/.svc', '/.svc/'].includes(line.trim()));
  if (ignored) return { file, changed: false, what: '.svc/ is already ignored by git' };
  const separator = text === '' || text.endsWith('\n') ? '' : '\n';
  await writeFile(file, `${text}${separator}# svc: ledger, keys and outbox (local state, never committed)\n.svc/\n`);
  return { file, changed: true, what: 'added .svc/ to .gitignore' };
}

/** `org:<workspace directory name>`, as the tenant pattern allows it. */
function tenantFor(workspace: string): string {
  const name = basename(workspace).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 63);
  return `org:${name === '' ? 'local' : name}`;
}

/**
 * The policy rule (YAML, indented for `policy.rules`) that steps up pushing, publishing and
 * recursive removal. It reads `simpleCommands` (each command as it runs: wrappers peeled, quotes
 * removed, one per line), so `sudo git push`, `"git" push` or `{ git push; }` match too; any
 * word between the program and its verb may stand between them (`git -C . push`), which also
 * steps up the odd harmless line such as `git log --grep push`.
 */
export const RISKY_COMMANDS_RULE = `    - id: risky-commands
      description: pushing, publishing and recursive removal wait for a person to approve the exact command
      when:
        tool: shell.command.run
        payload:
          simpleCommands: { regex: "(.*\\n)?(git( [^\\n]*)? push|(npm|pnpm|yarn)( [^\\n]*)? (publish|pub)|rm( [^\\n]*)? (-[a-zA-Z]*[rR][a-zA-Z]*|--recursive))(( |\\n).*)?" }
      decision: step_up
      reasons: [risky_command]
`;

function configTemplate(tenant: string): string {
  return `# svc.yml: what coding agents may do in this workspace. Reference: docs/configuration.md
tenant: ${tenant}

# Paths no agent may read (secrets) or change (svc's own files), whatever the rules below say.
# The built-in lists cover .env and .env.*, private keys and certificates, ~/.ssh, ~/.aws and
# other cloud and package-manager credentials; svc.yml, .svc/ and the agents' hook settings
# are write-protected. Add your own below.
protectedPaths:
  defaults: true
  read: []      # for example: config/secrets.yml
  write: []     # for example: .github/workflows
  # A path known only when the command runs (cat $FILE, python -c ...) could be a secret:
  dynamic: step_up

hooks:
  # step_up in a hook: deny, naming the approval to grant (the identical command then passes
  # once), or ask (the agent's own prompt: weaker, nothing is bound to the exact command).
  stepUp: deny
  # Opt-in, for faster hooks: a call decided without a proxy starts svc proxy for this
  # workspace in the background; the calls after it go to the proxy until it has been idle
  # for idleExit (then it exits, and the next call starts another).
  # residentProxy:
  #   idleExit: 30m

policy:
  # Rules are evaluated in order; deny beats step_up beats allow. In a hook, an action no rule
  # speaks for gets "no opinion": the agent's own permission prompt decides as usual.
  rules:
    # A regex must match the whole command; this one finds the risky part after a ;, &&, | or (.
${RISKY_COMMANDS_RULE}`;
}
