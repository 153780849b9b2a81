/**
 * `svc playground` from the build (dist/, as `npm start` and a published package run it): the page,
 * its scripts and the vendored noble modules are served from dist, a command is decided, the
 * user's home is never touched, and SIGTERM removes the throwaway sandbox.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';

const CLI = join(import.meta.dirname, '../../dist/src/cli/main.js');
const homes: string[] = [];

afterAll(async () => {
  for (const home of homes) await rm(home, { recursive: true, force: true });
});

describe('svc playground (built CLI)', () => {
  it('serves the page and API from dist, touches no home directory, and cleans up on SIGTERM', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-playground-home-'));
    homes.push(home);
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
    delete env.SVC_REVIEWER_KEYS_DIR;
    const child = spawn(process.execPath, [CLI, 'playground', '--port', '0', '--json', '--subdomain-host', 'play.example.org'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`exited ${code} before listening`)));
      });
      const info = JSON.parse(line) as { url: string; api: string; sandbox: string };
      expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/playground$/);
      expect(existsSync(info.sandbox)).toBe(true);
      const origin = info.url.replace(/\/playground$/, '');
      for (const [path, type] of [
        ['/playground', 'text/html'],
        ['/playground/static/playground.js', 'text/javascript'],
        ['/playground/static/verify.js', 'text/javascript'],
        ['/playground/static/jcs.js', 'text/javascript'],
        ['/playground/static/playground.css', 'text/css'],
        ['/playground/vendor/noble-hashes/sha2.js', 'text/javascript'],
        ['/playground/vendor/noble-hashes/utils.js', 'text/javascript'],
        ['/playground/vendor/noble-ed25519/index.js', 'text/javascript'],
      ] as const) {
        const response = await fetch(`${origin}${path}`);
        expect({ path, status: response.status }).toEqual({ path, status: 200 });
        expect(response.headers.get('content-type')).toContain(type);
      }
      expect((await fetch(`${origin}/playground/static/../../../package.json`)).status).toBe(404);
      const redirected = await fetch(`${origin}/`, { headers: { host: 'play.example.org' }, redirect: 'manual' });
      expect(redirected.status).toBe(302);
      const decided = await fetch(info.api, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ command: 'cp .env /tmp/x' }) });
      expect(await decided.json()).toMatchObject({ decision: 'deny', reasons: ['protected_path_read'] });
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(existsSync(info.sandbox)).toBe(false);
      expect(await readdir(home)).toEqual([]);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
