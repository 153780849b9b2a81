import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, type LoadedConfig } from '../../src/config/load-config.js';
import { localAuthorizer, type HookAuthorizer } from '../../src/hooks/hook-authorizer.js';
import { hookDecider, type HookDecider } from '../../src/hooks/run-hook.js';
import { runtimeProtocol } from '../../src/hooks/runtimes/index.js';
import { loadCorpus, makeFixtureWorkspace, type FixtureWorkspace } from './shell/corpus.js';

/**
 * The whole corpus through the real engine: each command planned into actions, each action
 * decided by the real Enforcer (default protected paths, no rules) and appended to a real ledger,
 * the decisions folded into one verdict. Every command must get the decision the corpus names,
 * and no command touching a protected path may get anything but a deny.
 */
const corpus = loadCorpus();
let fixture: FixtureWorkspace;
let state: string;
let authorizer: HookAuthorizer;
let decider: HookDecider;
const protocol = runtimeProtocol('claude-code');

beforeAll(async () => {
  fixture = makeFixtureWorkspace();
  // `~` in protected paths is the home of the user running svc: here, the fixture's.
  process.env.HOME = fixture.home;
  // The ledger and keys live outside the fixture, so the commands see the fixture unchanged.
  state = mkdtempSync(join(tmpdir(), 'svc-corpus-state-'));
  const text = `tenant: org:corpus\nledger:\n  path: ${join(state, 'ledger.jsonl')}\nkeys:\n  dir: ${join(state, 'keys')}\n  trust: ${join(state, 'trust.json')}\n`;
  const loaded: LoadedConfig = { file: join(fixture.root, 'svc.yml'), config: parseConfig(text, 'corpus svc.yml') };
  authorizer = await localAuthorizer(loaded);
  decider = hookDecider(loaded, fixture.home);
});

afterAll(async () => {
  await authorizer.close();
  fixture.cleanup();
  rmSync(state, { recursive: true, force: true });
});

describe('the shell corpus through the hook engine', () => {
  it(`decides all ${corpus.length} commands as the corpus says, with zero protected reads allowed`, async () => {
    const wrong: string[] = [];
    for (const entry of corpus) {
      const cwd = entry.cwd === undefined ? fixture.root : join(fixture.root, entry.cwd);
      const run = await decider.decide(
        { event: 'tool', runtime: 'claude-code', sessionId: 'corpus', cwd, toolName: 'Bash', call: { kind: 'shell', command: entry.command } },
        protocol,
        (action) => authorizer.authorize(action),
      );
      const decision = run.evaluation?.decision;
      if (decision !== entry.decision) wrong.push(`${entry.command}: engine ${decision}, corpus ${entry.decision}`);
      // Every action of the command is on the ledger: a decided record with its hash.
      for (const result of run.evaluation?.results ?? []) expect(result.ledger.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
      if (entry.unparsable) expect(run.evaluation?.results[0]?.reasons).toEqual(['shell_unparsable']);
    }
    expect(wrong).toEqual([]);
  });
});
