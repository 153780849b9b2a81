import { SvcError } from '../../errors.js';
import { HOOK_RUNTIMES, type HookRuntime, type RuntimeProtocol } from '../hook-event.js';
import { claudeCodeProtocol } from './claude-code.js';
import { codexProtocol } from './codex.js';
import { copilotProtocol } from './copilot.js';
import { cursorProtocol } from './cursor.js';
import { geminiProtocol } from './gemini.js';

export { MAX_HOOK_INPUT_BYTES } from './hook-input.js';

const PROTOCOLS: Readonly<Record<HookRuntime, RuntimeProtocol>> = {
  'claude-code': claudeCodeProtocol,
  codex: codexProtocol,
  cursor: cursorProtocol,
  gemini: geminiProtocol,
  copilot: copilotProtocol,
};

export function isHookRuntime(name: string): name is HookRuntime {
  return (HOOK_RUNTIMES as readonly string[]).includes(name);
}

/** The protocol of `name` (`svc hook <name>`); `hook_runtime_unknown` lists the known ones. */
export function runtimeProtocol(name: string): RuntimeProtocol {
  if (!isHookRuntime(name)) {
    throw new SvcError('hook_runtime_unknown', `unknown hook runtime ${JSON.stringify(name)}; known: ${HOOK_RUNTIMES.join(', ')}`);
  }
  return PROTOCOLS[name];
}
