import { HOOK_TIMEOUT_SECONDS, type RuntimeInstaller } from './installer.js';
import { ensureGroupedHook, listField, objectField } from './settings-file.js';

/**
 * `.codex/hooks.json` (Claude Code's shape): `hooks.PreToolUse` with matcher `*` (Bash,
 * apply_patch and MCP tools) and `hooks.UserPromptSubmit`, timeout in seconds. Codex loads
 * project hooks only for a trusted project, with its hooks feature on.
 */
export const codexInstaller: RuntimeInstaller = {
  settingsFile: '.codex/hooks.json',
  merge(settings, { runtime, command }, file) {
    const hooks = objectField(settings, 'hooks', file, 'hooks');
    const hook = { type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS };
    const tools = ensureGroupedHook(listField(hooks, 'PreToolUse', file, 'hooks.PreToolUse'), { matcher: '*', hook, runtime });
    const prompts = ensureGroupedHook(listField(hooks, 'UserPromptSubmit', file, 'hooks.UserPromptSubmit'), { hook: { ...hook }, runtime });
    return tools || prompts;
  },
};
