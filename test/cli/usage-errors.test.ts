import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

describe('usage errors', () => {
  it('with --json, a missing option is a JSON error body on stdout as well as the line on stderr; exit 2', async () => {
    const run = await runCli(['approvals', 'approve', 'apr_x', '--json']);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({ error: { code: 'usage', message: "required option '--as <user>' not specified" } });
    expect(run.stderr).toContain("required option '--as <user>' not specified");
  });

  it('without --json, stdout stays empty', async () => {
    const run = await runCli(['approvals', 'approve', 'apr_x']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain("required option '--as <user>' not specified");
  });

  it('--help is not an error, even with --json', async () => {
    const run = await runCli(['approvals', '--help', '--json']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('svc approvals approve');
  });
});
