import { lstat, mkdir, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { replaceFileDurably } from '../../fs/durable-file.js';
import { SvcError } from '../../errors.js';

/**
 * Read-merge-write of one JSON settings file: read it (a missing or empty file is `{}`), let
 * `merge` add what is missing, and only if it did, replace the file atomically (temp file beside
 * it, fsync, rename, fsync of the directory) with the same indentation and file mode. A file that
 * is not a JSON object is refused with `hook_settings_invalid` and left exactly as it is.
 */
export type JsonObject = Record<string, unknown>;

export interface SettingsUpdate {
  file: string;
  changed: boolean;
}

/** Settings files are small; anything bigger is not one. */
const MAX_SETTINGS_BYTES = 8 * 1024 * 1024;

export function settingsInvalid(file: string, message: string): SvcError {
  return new SvcError('hook_settings_invalid', `${file}: ${message}; svc does not overwrite it, fix it or add the hook by hand (docs/hooks.md)`);
}

export async function updateSettingsFile(file: string, merge: (settings: JsonObject) => boolean): Promise<SettingsUpdate> {
  const target = await writeTarget(file);
  const current = await readSettings(file, target);
  const settings = current.settings;
  if (!merge(settings)) return { file, changed: false };
  const text = `${JSON.stringify(settings, null, current.indent)}\n`;
  await writeAtomically(file, target, text, current.mode);
  return { file, changed: true };
}

/** Where to write: the file itself, or what it links to (a settings file symlinked from a dotfiles repository stays a symlink). */
async function writeTarget(file: string): Promise<string> {
  const info = await lstat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw ioError('inspect', file, error);
  });
  if (info === undefined) return file;
  if (info.isSymbolicLink()) {
    return realpath(file).catch((error: NodeJS.ErrnoException) => {
      throw ioError('follow the symbolic link', file, error);
    });
  }
  if (!info.isFile()) throw settingsInvalid(file, 'is not a regular file');
  return file;
}

interface CurrentSettings {
  settings: JsonObject;
  indent: string | number;
  mode: number;
}

async function readSettings(file: string, target: string): Promise<CurrentSettings> {
  let bytes: Buffer;
  try {
    bytes = await readFile(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { settings: {}, indent: 2, mode: 0o644 };
    throw ioError('read', file, error);
  }
  if (bytes.length > MAX_SETTINGS_BYTES) throw settingsInvalid(file, `is larger than ${MAX_SETTINGS_BYTES} bytes`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw settingsInvalid(file, 'is not UTF-8 text');
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const mode = (await stat(target)).mode & 0o7777;
  if (text.trim() === '') return { settings: {}, indent: 2, mode };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw settingsInvalid(file, `is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw settingsInvalid(file, 'is not a JSON object');
  return { settings: value as JsonObject, indent: indentOf(text), mode };
}

/** The indentation the file already uses (a tab or 1–8 spaces), else two spaces. */
function indentOf(text: string): string | number {
  const match = /^([ \t]+)["}\]]/m.exec(text);
  const found = match?.[1];
  if (found === undefined) return 2;
  if (found.startsWith('\t')) return '\t';
  return Math.min(Math.max(found.length, 1), 8);
}

async function writeAtomically(file: string, target: string, text: string, mode: number): Promise<void> {
  const dir = path.dirname(target);
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw ioError('create the directory of', file, error);
  }
  try {
    await replaceFileDurably(target, text, mode);
  } catch (error) {
    throw ioError('write', file, error);
  }
}

function ioError(action: string, file: string, error: unknown): SvcError {
  const detail = error instanceof Error ? error.message : String(error);
  return new SvcError('hook_settings_io', `cannot ${action} ${file}: ${detail}`, { cause: error });
}

/** `parent[key]` as an object, created when absent; refused when it is something else. */
export function objectField(parent: JsonObject, key: string, file: string, label: string): JsonObject {
  const value = parent[key];
  if (value === undefined) {
    const created: JsonObject = {};
    parent[key] = created;
    return created;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw settingsInvalid(file, `${label} is not an object`);
  return value as JsonObject;
}

/** `parent[key]` as a list, created when absent; refused when it is something else. */
export function listField(parent: JsonObject, key: string, file: string, label: string): unknown[] {
  const value = parent[key];
  if (value === undefined) {
    const created: unknown[] = [];
    parent[key] = created;
    return created;
  }
  if (!Array.isArray(value)) throw settingsInvalid(file, `${label} is not a list`);
  return value;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Matchers that select every tool: absent, empty, `*` or `.*`. */
export function matchesEverything(matcher: unknown): boolean {
  return matcher === undefined || matcher === null || matcher === '' || matcher === '*' || matcher === '.*';
}

/**
 * Removes from `list` every entry that `isSvc` says is an svc hook, except the first one `keep`
 * accepts; returns whether that one is there and whether anything was removed. For the runtimes
 * whose event lists hold hooks directly (Cursor, Copilot).
 */
export function pruneSvcEntries(list: unknown[], isSvc: (entry: JsonObject) => boolean, keep: (entry: JsonObject) => boolean): { kept: boolean; removed: boolean } {
  let kept = false;
  let removed = false;
  for (let index = 0; index < list.length; index += 1) {
    const entry = list[index];
    if (!isObject(entry) || !isSvc(entry)) continue;
    if (!kept && keep(entry)) {
      kept = true;
      continue;
    }
    list.splice(index, 1);
    index -= 1;
    removed = true;
  }
  return { kept, removed };
}

/**
 * Whether `command` runs `svc hook <runtime>`, however svc is started (`svc`, `npx svc`, an
 * absolute path, `node …/dist/src/cli/svc.cjs` or `…/main.js`) and whatever options follow: one such hook per
 * event is enough, a second one only makes every call decided twice.
 */
export function isSvcHookCommand(command: unknown, runtime: string): boolean {
  if (typeof command !== 'string') return false;
  const escaped = runtime.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?:^|[\\s'"/\\\\])(?:svc|svc\\.cmd|svc\\.cjs|main\\.js)['"]?\\s+hook\\s+${escaped}(?:\\s|$)`).test(command);
}

/**
 * Claude Code, Codex and Gemini CLI group hooks as `[{ matcher?, hooks: [{ type, command, ... }] }]`.
 * Ends with exactly one svc hook for the event, `hook`, in a group whose matcher selects every
 * tool (for events without matchers, in any group): an svc hook with another command or under a
 * narrower matcher (`Bash`) is removed, and a group left empty by that goes with it; other hooks
 * and groups are not touched. Returns whether anything changed.
 */
export function ensureGroupedHook(list: unknown[], options: { matcher?: string; hook: JsonObject & { command: string }; runtime: string }): boolean {
  // The first svc hook with exactly this command where it belongs stays; every other svc hook goes.
  let kept = false;
  let changed = false;
  for (let index = 0; index < list.length; index += 1) {
    const group = list[index];
    if (!isObject(group) || !Array.isArray(group.hooks)) continue;
    const selectsAll = options.matcher === undefined || matchesEverything(group.matcher);
    const hooks = group.hooks.filter((hook) => {
      if (!isObject(hook) || !isSvcHookCommand(hook.command, options.runtime)) return true;
      if (!kept && selectsAll && hook.command === options.hook.command) return (kept = true);
      return false;
    });
    if (hooks.length === group.hooks.length) continue;
    changed = true;
    if (hooks.length > 0) {
      group.hooks = hooks;
      continue;
    }
    list.splice(index, 1);
    index -= 1;
  }
  if (kept) return changed;
  list.push(options.matcher === undefined ? { hooks: [options.hook] } : { matcher: options.matcher, hooks: [options.hook] });
  return true;
}
