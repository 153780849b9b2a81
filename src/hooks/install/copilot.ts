import { HOOK_TIMEOUT_SECONDS, type RuntimeInstaller } from './installer.js';
import { isObject, listField, objectField } from './settings-file.js';

/**
 * `.github/hooks/svc.json`, a file of svc's own among the `.github/hooks/*.json` Copilot loads:
 * `preToolUse` running the command under bash and PowerShell. No prompt hook: Copilot ignores the
 * output of `userPromptSubmitted`, so it could not refuse anything.
 */
export const copilotInstaller: RuntimeInstaller = {
  settingsFile: '.github/hooks/svc.json',
  merge(settings, command, file) {
    if (Object.keys(settings).length === 0) settings.version = 1; // first in a new file, as Copilot documents it
    const hooks = objectField(settings, 'hooks', file, 'hooks');
    const list = listField(hooks, 'preToolUse', file, 'hooks.preToolUse');
    if (list.some((entry) => isObject(entry) && (entry.bash === command || entry.powershell === command))) return false;
    list.push({ type: 'command', bash: command, powershell: command, timeoutSec: HOOK_TIMEOUT_SECONDS });
    if (settings.version === undefined) settings.version = 1;
    return true;
  },
};
