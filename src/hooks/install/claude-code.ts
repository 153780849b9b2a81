import { HOOK_TIMEOUT_SECONDS, type RuntimeInstaller } from './installer.js';
import { ensureGroupedHook, listField, objectField } from './settings-file.js';

/**
 * `.claude/settings.json`: `hooks.PreToolUse` with matcher `*` (every tool, MCP tools included)
 * and `hooks.UserPromptSubmit`, each running the command with a timeout in seconds.
 */
export const claudeCodeInstaller: RuntimeInstaller = {
  settingsFile: '.claude/settings.json',
  merge(settings, { runtime, command }, file) {
    const hooks = objectField(settings, 'hooks', file, 'hooks');
    const hook = { type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS };
    const tools = ensureGroupedHook(listField(hooks, 'PreToolUse', file, 'hooks.PreToolUse'), { matcher: '*', hook, runtime });
    const prompts = ensureGroupedHook(listField(hooks, 'UserPromptSubmit', file, 'hooks.UserPromptSubmit'), { hook: { ...hook }, runtime });
    return tools || prompts;
  },
};
