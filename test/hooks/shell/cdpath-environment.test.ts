import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadShellAnalyzer, type ShellAnalyzer } from '../../../src/hooks/shell/index.js';
import { makeFixtureWorkspace, type FixtureWorkspace } from './corpus.js';

/**
 * Without a CDPATH in the context, `cd name` searches the CDPATH of the analyzing process'
 * environment (the agent's shell inherits the hook's), read when a `cd` needs it: as it is at
 * that analysis, never as it was at an earlier one.
 */

let analyzer: ShellAnalyzer;
let fixture: FixtureWorkspace;
const saved = process.env.CDPATH;

beforeAll(async () => {
  analyzer = await loadShellAnalyzer();
  fixture = makeFixtureWorkspace();
});

afterEach(() => {
  if (saved === undefined) delete process.env.CDPATH;
  else process.env.CDPATH = saved;
});

afterAll(() => fixture.cleanup());

function readPaths(command: string, cdpath?: string): (string | undefined)[] {
  const result = analyzer.analyze(command, { cwd: fixture.root, home: fixture.home, ...(cdpath !== undefined && { cdpath }) });
  if (!result.ok) throw new Error(result.message);
  return result.operations.filter((operation) => operation.kind === 'read').map((operation) => operation.path);
}

describe('CDPATH of the environment', () => {
  it('is searched by `cd name`, as it is when the command is analyzed', () => {
    process.env.CDPATH = fixture.home;
    expect(readPaths('cd .aws && cat credentials')).toEqual([join(fixture.home, '.aws/credentials')]);
    delete process.env.CDPATH;
    expect(readPaths('cd .aws && cat credentials')).not.toContain(join(fixture.home, '.aws/credentials'));
    process.env.CDPATH = `:${fixture.home}`;
    expect(readPaths('cd config && cat app.json')).toEqual([join(fixture.root, 'config/app.json')]);
  });

  it('gives way to the CDPATH of the context and to one the command line sets', () => {
    process.env.CDPATH = fixture.home;
    expect(readPaths('cd .aws && cat credentials', '')).not.toContain(join(fixture.home, '.aws/credentials'));
    expect(readPaths('CDPATH=; cd .aws && cat credentials')).not.toContain(join(fixture.home, '.aws/credentials'));
    delete process.env.CDPATH;
    expect(readPaths('cd .aws && cat credentials', fixture.home)).toEqual([join(fixture.home, '.aws/credentials')]);
  });
});
