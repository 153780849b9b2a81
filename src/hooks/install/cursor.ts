import { HOOK_TIMEOUT_SECONDS, type RuntimeInstaller } from './installer.js';
import { isSvcHookCommand, listField, matchesEverything, objectField, pruneSvcEntries } from './settings-file.js';

/**
 * `.cursor/hooks.json` (`{"version": 1, "hooks": {event: [{command, ...}]}}`): the command on
 * every event that can refuse something svc decides, each `failClosed` so a crashed or timed-out
 * hook blocks instead of letting the action through.
 */
export const CURSOR_HOOK_EVENTS = ['beforeShellExecution', 'beforeMCPExecution', 'beforeReadFile', 'preToolUse', 'beforeSubmitPrompt'] as const;

export const cursorInstaller: RuntimeInstaller = {
  settingsFile: '.cursor/hooks.json',
  merge(settings, { runtime, command }, file) {
    if (Object.keys(settings).length === 0) settings.version = 1; // first in a new file, as Cursor documents it
    const hooks = objectField(settings, 'hooks', file, 'hooks');
    let changed = false;
    for (const event of CURSOR_HOOK_EVENTS) {
      const list = listField(hooks, event, file, `hooks.${event}`);
      const { kept, removed } = pruneSvcEntries(list, (entry) => isSvcHookCommand(entry.command, runtime), (entry) => entry.command === command && matchesEverything(entry.matcher));
      changed ||= removed;
      if (kept) continue;
      list.push({ command, failClosed: true, timeout: HOOK_TIMEOUT_SECONDS });
      changed = true;
    }
    if (changed && settings.version === undefined) settings.version = 1;
    return changed;
  },
};
