import { HOOK_TIMEOUT_SECONDS, type RuntimeInstaller } from './installer.js';
import { ensureGroupedHook, listField, objectField } from './settings-file.js';

/**
 * `.gemini/settings.json`: `hooks.BeforeTool` with matcher `*` and `hooks.BeforeAgent`, each a
 * command hook named `svc` with its timeout in milliseconds. The other keys under `hooks`
 * (`enabled`, `disabled`, `notifications`) are left as they are.
 */
export const geminiInstaller: RuntimeInstaller = {
  settingsFile: '.gemini/settings.json',
  merge(settings, { runtime, command }, file) {
    const hooks = objectField(settings, 'hooks', file, 'hooks');
    const hook = { name: 'svc', type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS * 1000 };
    const tools = ensureGroupedHook(listField(hooks, 'BeforeTool', file, 'hooks.BeforeTool'), { matcher: '*', hook, runtime });
    const prompts = ensureGroupedHook(listField(hooks, 'BeforeAgent', file, 'hooks.BeforeAgent'), { hook: { ...hook }, runtime });
    return tools || prompts;
  },
};
