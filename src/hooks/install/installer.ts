import type { JsonObject } from './settings-file.js';

/** Where one runtime keeps its project hook settings, and how svc's hook is added to them. */
export interface RuntimeInstaller {
  /** The settings file, relative to the workspace. */
  readonly settingsFile: string;
  /** Adds `command` where it is missing; returns whether anything changed. Throws `hook_settings_invalid` on a shape it cannot extend. */
  merge(settings: JsonObject, command: string, file: string): boolean;
}

/** Seconds every runtime gives svc to decide before it gives up on the hook. */
export const HOOK_TIMEOUT_SECONDS = 30;
