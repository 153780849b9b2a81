/**
 * The contract floor of the proxy benchmark (bench/contract-floor-server.ts) is a reference only
 * if it really does the work it claims: a pass that a standard JOSE library verifies, three
 * records per allow on disk, chained by their RFC 6962 leaf hashes, and an answer naming the
 * decision record's hash. Runs the built server as a child process over loopback HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compactVerify, importJWK, type JWK } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';

const FLOOR_SERVER = fileURLToPath(new URL('../../dist/bench/contract-floor-server.js', import.meta.url));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

async function startFloor(ledger: string, flags: string[] = []): Promise<{ url: string; publicKeyJwk: JWK }> {
  const child = spawn(process.execPath, [FLOOR_SERVER, ledger, ...flags], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  let out = '';
  for await (const chunk of child.stdout) {
    out += String(chunk);
    if (out.includes('\n')) break;
  }
  return JSON.parse(out.slice(0, out.indexOf('\n'))) as { url: string; publicKeyJwk: JWK };
}

const action = (n: number) => ({
  schemaVersion: 'svc.action.v0',
  actor: { agentId: 'agent:bench', humanOwner: 'user:dev@acme.example', runtime: 'bench' },
  intent: { taskId: 'bench-1' },
  capability: { tool: 'chat.message.send', resource: 'channel:eng', payload: { channel: 'eng', text: `deploy #${n}` } },
});

interface FloorAnswer {
  decision: { decision: string };
  ledger: { seq: number; hash: string };
  actionPass: { token: string; claims: Record<string, unknown> };
}

async function authorize(url: string, n: number): Promise<{ status: number; body: FloorAnswer }> {
  const response = await fetch(`${url}/authorize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(action(n)) });
  return { status: response.status, body: (await response.json()) as FloorAnswer };
}

const leafHash = (line: string) => `sha256:${createHash('sha256').update('\0').update(line).digest('hex')}`;

describe('contract floor server', () => {
  it('signs a pass jose verifies and writes three chained records per allow before answering', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-floor-'));
    const ledger = join(dir, 'floor.jsonl');
    const { url, publicKeyJwk } = await startFloor(ledger);
    const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => authorize(url, n)));
    const lines = (await readFile(ledger, 'utf8')).split('\n').filter((line) => line.length > 0);
    expect(lines).toHaveLength(15);
    const records = lines.map((line) => JSON.parse(line) as { seq: number; prevHash: string; type: string });
    records.forEach((record, index) => {
      expect(record.seq).toBe(index + 1);
      if (index > 0) expect(record.prevHash).toBe(leafHash(lines[index - 1] as string));
    });
    expect(records.filter((record) => record.type === 'actionpass.issued')).toHaveLength(5);
    const key = await importJWK(publicKeyJwk, 'EdDSA');
    for (const { status, body } of answers) {
      expect(status).toBe(200);
      expect(body.decision.decision).toBe('allow');
      const { payload } = await compactVerify(body.actionPass.token, key);
      expect(JSON.parse(new TextDecoder().decode(payload))).toEqual(body.actionPass.claims);
      const decided = lines[body.ledger.seq - 1] as string;
      expect(JSON.parse(decided).type).toBe('policy.decided');
      expect(body.ledger.hash).toBe(leafHash(decided));
    }
  });

  it('with --no-sign puts the unsigned claims where the token goes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-floor-'));
    const { url } = await startFloor(join(dir, 'floor.jsonl'), ['--no-sign', '--no-sync']);
    const { body } = await authorize(url, 1);
    expect(JSON.parse(body.actionPass.token)).toEqual(body.actionPass.claims);
  });
});
