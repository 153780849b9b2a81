import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RISKY_COMMANDS_RULE } from '../../src/hooks/init-workspace.js';
import { startHookEngine, type HookEngine } from './hook-engine.js';
import { makeFixtureWorkspace, type FixtureWorkspace } from './shell/corpus.js';

/**
 * The `risky-commands` rule `svc init` writes, through the real engine: it reads the commands as
 * they run (wrappers peeled, quotes removed), so the spellings that dodged a regex over the raw
 * text still step up, and everyday commands do not.
 */
let fixture: FixtureWorkspace;
let engine: HookEngine;

beforeAll(async () => {
  fixture = makeFixtureWorkspace();
  // A package that publishes only dist/, so that publishing it reads no protected file.
  writeFileSync(join(fixture.root, 'package.json'), JSON.stringify({ name: 'fixture', version: '1.0.0', files: ['dist'] }));
  engine = await startHookEngine({ workspace: fixture.root, home: fixture.home, rules: RISKY_COMMANDS_RULE });
});

afterAll(async () => {
  await engine.close();
  fixture.cleanup();
});

async function decisionOf(command: string): Promise<{ decision: string | undefined; reasons: string[] }> {
  const evaluation = await engine.decideShell(command, fixture.root);
  return { decision: evaluation?.decision, reasons: evaluation?.results.flatMap((result) => result.reasons) ?? [] };
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
