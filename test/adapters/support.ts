import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { NormalizedAction, Payload } from '../../src/actionpass/action.js';
import type { HandlerContext } from '../../src/adapters/tool-handler.js';
import type { Sha256 } from '../../src/events/canonical.js';

/** A fixed clock: 2026-11-21T10:00:00.000Z, so delivery names are predictable. */
export const FIXED_NOW = Date.UTC(2026, 10, 21, 10, 0, 0, 0);
export const FIXED_STAMP = '20261121T100000.000Z';

export function action(tool: string, resource: string, payload: Payload): NormalizedAction {
  return {
    schemaVersion: 'svc.action.v0',
    actor: { agentId: 'agent:test', tenant: 'org:acme' },
    intent: { taskId: 'task-1' },
    capability: { tool, resource, payload },
  };
}

export interface RecordingContext extends HandlerContext {
  /** Every hash the handler asked to verify, in order. */
  readonly verified: Sha256[];
}

/**
 * A HandlerContext that records what it was asked to verify; `onVerify` plays the ActionPass
 * verifier (throw to refuse) or an attacker acting in the instant after verification.
 */
export function recordingContext(actionId = 'act_1', onVerify?: (hash: Sha256) => void): RecordingContext {
  const verified: Sha256[] = [];
  return {
    actionId,
    verified,
    verifyBeforeSideEffect(hash) {
      verified.push(hash);
      onVerify?.(hash);
    },
  };
}

export function sha256Of(bytes: Uint8Array): Sha256 {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

const created: string[] = [];

/** A fresh directory under the OS temp dir, removed after the test. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-adapters-'));
  created.push(dir);
  return dir;
}

afterEach(async () => {
  for (const dir of created.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** Every entry below `dir` (files, directories, links), as sorted relative paths; [] when missing. */
export async function listTree(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true });
    return entries.map((entry) => entry.split(path.sep).join('/')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Runs `promise` and returns the SvcError code it rejected with (fails if it resolved). */
export async function rejectionCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: string }).code ?? `no code: ${String(error)}`;
  }
  throw new Error('expected a rejection');
}
