import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHookEngine, type HookEngine } from './hook-engine.js';
import { loadCorpus, makeFixtureWorkspace, type FixtureWorkspace } from './shell/corpus.js';

/**
 * The whole corpus through the real engine: each command planned into actions, each action
 * decided by the real Enforcer (default protected paths, no rules) and appended to a real ledger,
 * the decisions folded into one verdict. Every command must get the decision the corpus names,
 * and no command touching a protected path may get anything but a deny.
 */
const corpus = loadCorpus();
let fixture: FixtureWorkspace;
let engine: HookEngine;

beforeAll(async () => {
  fixture = makeFixtureWorkspace();
  // The ledger and keys live outside the fixture, so the commands see the fixture unchanged.
  engine = await startHookEngine({ workspace: fixture.root, home: fixture.home });
});

afterAll(async () => {
  await engine.close();
  fixture.cleanup();
});

describe('the shell corpus through the hook engine', () => {
  it(`decides all ${corpus.length} commands as the corpus says, with zero protected reads allowed`, async () => {
    const wrong: string[] = [];
    for (const entry of corpus) {
      const cwd = entry.cwd === undefined ? fixture.root : join(fixture.root, entry.cwd);
      const evaluation = await engine.decideShell(entry.command, cwd);
      const decision = evaluation?.decision;
      if (decision !== entry.decision) wrong.push(`${entry.command}: engine ${decision}, corpus ${entry.decision}`);
      // Every action of the command is on the ledger: a decided record with its hash.
      for (const result of evaluation?.results ?? []) expect(result.ledger.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
      if (entry.unparsable) expect(evaluation?.results[0]?.reasons).toEqual(['shell_unparsable']);
    }
    expect(wrong).toEqual([]);
  });
});
