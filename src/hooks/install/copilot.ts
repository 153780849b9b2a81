import { HOOK_TIMEOUT_SECONDS, type RuntimeInstaller } from './installer.js';
import { isSvcHookCommand, listField, objectField, pruneSvcEntries } from './settings-file.js';

/**
 * `.github/hooks/svc.json`, a file of svc's own among the `.github/hooks/*.json` Copilot loads:
 * `preToolUse` running the command under bash and PowerShell. No prompt hook: Copilot ignores the
 * output of `userPromptSubmitted`, so it could not refuse anything.
 */
export const copilotInstaller: RuntimeInstaller = {
  settingsFile: '.github/hooks/svc.json',
  merge(settings, { runtime, command, powershell }, file) {
    if (Object.keys(settings).length === 0) settings.version = 1; // first in a new file, as Copilot documents it
    const hooks = objectField(settings, 'hooks', file, 'hooks');
    const list = listField(hooks, 'preToolUse', file, 'hooks.preToolUse');
    const { kept, removed } = pruneSvcEntries(
      list,
      (entry) => isSvcHookCommand(entry.bash, runtime) || isSvcHookCommand(entry.powershell, runtime),
      (entry) => entry.bash === command && entry.powershell === powershell,
    );
    if (kept) return removed;
    list.push({ type: 'command', bash: command, powershell, timeoutSec: HOOK_TIMEOUT_SECONDS });
    if (settings.version === undefined) settings.version = 1;
    return true;
  },
};
