import { expect } from 'vitest';
import { SvcError } from '../../../src/errors.js';
import type { HookEvent, HookOutput, HookVerdict, RuntimeProtocol } from '../../../src/hooks/hook-event.js';

/** Runs `parse` and returns the SvcError it threw; fails the test on success or on any other error. */
export function invalid(parse: () => unknown): SvcError {
  let thrown: unknown;
  try {
    parse();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, 'expected hook_input_invalid, got a result').toBeInstanceOf(SvcError);
  const error = thrown as SvcError;
  expect(error.code).toBe('hook_input_invalid');
  return error;
}

export function expectInvalid(protocol: RuntimeProtocol, raw: string, fragment: string | RegExp): void {
  const error = invalid(() => protocol.parseInput(raw));
  if (typeof fragment === 'string') expect(error.message).toContain(fragment);
  else expect(error.message).toMatch(fragment);
}

export const ALLOW: HookVerdict = { decision: 'allow', reason: 'no rule stops this' };
export const DENY = { decision: 'deny', reason: 'read /repo/.env: protected (secrets). Do not read it; ask the user for the value you need.' } as const;
export const ASK: HookVerdict = { decision: 'ask', reason: 'git push needs approval' };
export const NO_OPINION: HookVerdict = { decision: 'no_opinion' };

export function out(stdout: string, exitCode = 0, stderr = ''): HookOutput {
  return { stdout, stderr, exitCode };
}

export function line(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** The four verdicts' outputs for one event, for exact comparison. */
export function outputs(protocol: RuntimeProtocol, event: HookEvent | undefined): Record<'allow' | 'deny' | 'ask' | 'no_opinion', HookOutput> {
  return {
    allow: protocol.formatVerdict(ALLOW, event),
    deny: protocol.formatVerdict(DENY, event),
    ask: protocol.formatVerdict(ASK, event),
    no_opinion: protocol.formatVerdict(NO_OPINION, event),
  };
}
