import { stat } from 'node:fs/promises';
import path from 'node:path';
import { SvcError } from '../../errors.js';
import { HOOK_RUNTIMES, type HookRuntime } from '../hook-event.js';
import { isHookRuntime } from '../runtimes/index.js';
import { claudeCodeInstaller } from './claude-code.js';
import { codexInstaller } from './codex.js';
import { copilotInstaller } from './copilot.js';
import { cursorInstaller } from './cursor.js';
import { geminiInstaller } from './gemini.js';
import type { RuntimeInstaller } from './installer.js';
import { updateSettingsFile } from './settings-file.js';

export type { RuntimeInstaller } from './installer.js';

const INSTALLERS: Readonly<Record<HookRuntime, RuntimeInstaller>> = {
  'claude-code': claudeCodeInstaller,
  codex: codexInstaller,
  cursor: cursorInstaller,
  gemini: geminiInstaller,
  copilot: copilotInstaller,
};

export interface InstallHookOptions {
  /** The project directory (it must exist). */
  workspace: string;
  /** What the runtime runs, for example `svc hook claude-code`. */
  command: string;
  /** What it runs under PowerShell, where a runtime has that (Copilot); by default `command`. */
  powershellCommand?: string;
}

/** The project-level settings file `runtime` reads its hooks from, inside `workspace`. */
export function hookSettingsFile(runtime: string, workspace: string): string {
  return path.join(path.resolve(workspace), installerOf(runtime).settingsFile);
}

/**
 * Adds `command` to `runtime`'s project hook settings in `workspace`, merged with what is there:
 * other hooks and settings are kept, a second run changes nothing (`changed: false`, file not
 * rewritten), and a settings file that is not valid JSON is refused (`hook_settings_invalid`)
 * and left untouched.
 */
export async function installHook(runtime: string, options: InstallHookOptions): Promise<{ file: string; changed: boolean }> {
  const installer = installerOf(runtime);
  const command = oneLine(options.command);
  const powershell = options.powershellCommand === undefined ? command : oneLine(options.powershellCommand);
  const workspace = path.resolve(options.workspace);
  const info = await stat(workspace).catch(() => undefined);
  if (!info?.isDirectory()) throw new SvcError('hook_workspace_invalid', `${workspace} is not a directory`);
  const file = path.join(workspace, installer.settingsFile);
  return updateSettingsFile(file, (settings) => installer.merge(settings, { runtime, command, powershell }, file));
}

function oneLine(command: unknown): string {
  if (typeof command !== 'string' || command.trim() === '' || /[\r\n\0]/.test(command)) {
    throw new SvcError('hook_command_invalid', `the hook command must be one non-empty line (got ${JSON.stringify(command)})`);
  }
  return command;
}

function installerOf(runtime: string): RuntimeInstaller {
  if (!isHookRuntime(runtime)) {
    throw new SvcError('hook_runtime_unknown', `unknown hook runtime ${JSON.stringify(runtime)}; known: ${HOOK_RUNTIMES.join(', ')}`);
  }
  return INSTALLERS[runtime];
}
