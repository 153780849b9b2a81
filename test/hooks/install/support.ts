import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect } from 'vitest';
import { SvcError } from '../../../src/errors.js';

const created: string[] = [];

export async function workspace(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-install-'));
  created.push(dir);
  return dir;
}

afterEach(async () => {
  for (const dir of created.splice(0)) await rm(dir, { recursive: true, force: true });
});

export async function readJson(file: string): Promise<unknown> {
  return JSON.parse(await readFile(file, 'utf8')) as unknown;
}

/** Bytes and modification time, to prove a file was not touched. */
export async function snapshot(file: string): Promise<{ bytes: string; mtimeMs: number; ino: number }> {
  const info = await stat(file);
  return { bytes: (await readFile(file)).toString('base64'), mtimeMs: info.mtimeMs, ino: info.ino };
}

/** Every entry under `dir`, relative, sorted (temp files left behind would show here). */
export async function listTree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.map(String).sort();
}

export async function rejection(promise: Promise<unknown>): Promise<SvcError> {
  let thrown: unknown;
  try {
    await promise;
  } catch (error) {
    thrown = error;
  }
  expect(thrown, 'expected a rejection').toBeInstanceOf(SvcError);
  return thrown as SvcError;
}
