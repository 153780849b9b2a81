import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig, type LoadedConfig } from '../../src/config/load-config.js';
import type { HookEvaluation } from '../../src/hooks/evaluate-hook.js';
import { localAuthorizer } from '../../src/hooks/hook-authorizer.js';
import { hookDecider } from '../../src/hooks/run-hook.js';
import { runtimeProtocol } from '../../src/hooks/runtimes/index.js';

export interface HookEngine {
  /** Decides one Bash call as `svc hook claude-code` would, appending to the engine's ledger. */
  decideShell(command: string, cwd: string): Promise<HookEvaluation | undefined>;
  /** Decides one Claude Code tool call (`mcp__git__git_show`, `Read`, …) from the input Claude Code would send. */
  decideTool(toolName: string, toolInput: Record<string, unknown>, cwd: string): Promise<HookEvaluation | undefined>;
  /** The engine's ledger file. */
  ledgerPath: string;
  close(): Promise<void>;
}

/**
 * The real hook engine in-process: default protected paths, the given policy rules (YAML lines
 * indented for `policy.rules`), a real ledger and keys in a directory of their own, outside the
 * workspace the commands see. `~` is `home`, as for the user running svc.
 */
export async function startHookEngine(options: { workspace: string; home: string; rules?: string }): Promise<HookEngine> {
  process.env.HOME = options.home;
  const state = mkdtempSync(join(tmpdir(), 'svc-hook-engine-'));
  const policy = options.rules === undefined ? '' : `policy:\n  rules:\n${options.rules}`;
  const text = `tenant: org:tests\nledger:\n  path: ${join(state, 'ledger.jsonl')}\nkeys:\n  dir: ${join(state, 'keys')}\n  trust: ${join(state, 'trust.json')}\n${policy}`;
  const loaded: LoadedConfig = { file: join(options.workspace, 'svc.yml'), config: parseConfig(text, 'test svc.yml') };
  const authorizer = await localAuthorizer(loaded);
  const decider = hookDecider(loaded, options.home);
  const protocol = runtimeProtocol('claude-code');
  return {
    ledgerPath: join(state, 'ledger.jsonl'),
    async decideShell(command, cwd) {
      const run = await decider.decide({ event: 'tool', runtime: 'claude-code', sessionId: 'tests', cwd, toolName: 'Bash', call: { kind: 'shell', command } }, protocol, (action) => authorizer.authorize(action));
      return run.evaluation;
    },
    async decideTool(toolName, toolInput, cwd) {
      const event = protocol.parseInput(JSON.stringify({ session_id: 'tests', cwd, hook_event_name: 'PreToolUse', tool_name: toolName, tool_input: toolInput }));
      const run = await decider.decide(event, protocol, (action) => authorizer.authorize(action));
      return run.evaluation;
    },
    async close() {
      await authorizer.close();
      rmSync(state, { recursive: true, force: true });
    },
  };
}
