import type { JsonObject } from './settings-file.js';

/** What the runtime is to run: the command line, and for a runtime that also runs hooks under PowerShell (Copilot), its PowerShell form. */
export interface HookCommand {
  runtime: string;
  command: string;
  powershell: string;
}

/** Where one runtime keeps its project hook settings, and how svc's hook is added to them. */
export interface RuntimeInstaller {
  /** The settings file, relative to the workspace. */
  readonly settingsFile: string;
  /**
   * Adds the hook where it is missing and removes any other svc hook (another command, a
   * narrower matcher), so the hook runs once per call; returns whether anything changed.
   * Throws `hook_settings_invalid` on a shape it cannot extend.
   */
  merge(settings: JsonObject, hook: HookCommand, file: string): boolean;
}

/** Seconds every runtime gives svc to decide before it gives up on the hook. */
export const HOOK_TIMEOUT_SECONDS = 30;
