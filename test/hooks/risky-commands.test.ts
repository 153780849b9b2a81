import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, type LoadedConfig } from '../../src/config/load-config.js';
import { localAuthorizer, type HookAuthorizer } from '../../src/hooks/hook-authorizer.js';
import { RISKY_COMMANDS_RULE } from '../../src/hooks/init-workspace.js';
import { hookDecider, type HookDecider } from '../../src/hooks/run-hook.js';
import { runtimeProtocol } from '../../src/hooks/runtimes/index.js';
import { makeFixtureWorkspace, type FixtureWorkspace } from './shell/corpus.js';

/**
 * The `risky-commands` rule `svc init` writes, through the real engine: it reads the commands as
 * they run (wrappers peeled, quotes removed), so the spellings that dodged a regex over the raw
 * text still step up, and everyday commands do not.
 */
let fixture: FixtureWorkspace;
let state: string;
let authorizer: HookAuthorizer;
let decider: HookDecider;
const protocol = runtimeProtocol('claude-code');

beforeAll(async () => {
  fixture = makeFixtureWorkspace();
  process.env.HOME = fixture.home;
  state = mkdtempSync(join(tmpdir(), 'svc-risky-state-'));
  const text = `tenant: org:risky\nledger:\n  path: ${join(state, 'ledger.jsonl')}\nkeys:\n  dir: ${join(state, 'keys')}\n  trust: ${join(state, 'trust.json')}\npolicy:\n  rules:\n${RISKY_COMMANDS_RULE}`;
  const loaded: LoadedConfig = { file: join(fixture.root, 'svc.yml'), config: parseConfig(text, 'risky svc.yml') };
  authorizer = await localAuthorizer(loaded);
  decider = hookDecider(loaded, fixture.home);
});

afterAll(async () => {
  await authorizer.close();
  fixture.cleanup();
  rmSync(state, { recursive: true, force: true });
});

async function decisionOf(command: string): Promise<{ decision: string | undefined; reasons: string[] }> {
  const run = await decider.decide({ event: 'tool', runtime: 'claude-code', sessionId: 'risky', cwd: fixture.root, toolName: 'Bash', call: { kind: 'shell', command } }, protocol, (action) => authorizer.authorize(action));
  return { decision: run.evaluation?.decision, reasons: run.evaluation?.results.flatMap((result) => result.reasons) ?? [] };
}

const RISKY = [
  'git push',
  'git push origin main --force',
  'git -C . push',
  'command git push',
  '"git" push',
  "g''it push",
  'env git push',
  'sudo git push',
  'timeout 60 git push',
  '{ git push; }',
  'if true; then git push; fi',
  'echo hi\ngit push',
  'echo `git push`',
  'npm publish',
  'npm pub',
  'pnpm publish --access public',
  'yarn publish',
  'rm -rf build',
  'rm -r -f build',
  'rm --recursive --force build',
  'rm -fR build',
  'cd src && rm -r old',
];

const EVERYDAY = ['git status', 'git commit -m "fix parser"', 'npm test', 'npm run build', 'rm -f notes.txt', 'ls -la', 'echo pushed'];

describe('the risky-commands rule of svc init', () => {
  it.each(RISKY)('steps up %j', async (command) => {
    expect(await decisionOf(command)).toMatchObject({ decision: 'step_up', reasons: expect.arrayContaining(['risky_command']) });
  });

  it.each(EVERYDAY)('leaves %j to the rest of the policy', async (command) => {
    expect((await decisionOf(command)).reasons).not.toContain('risky_command');
  });
});
