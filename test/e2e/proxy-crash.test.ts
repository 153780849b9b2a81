/**
 * Crash test of the whole proxy: the real `svc proxy` process serves 16 concurrent clients posting
 * allowed chat actions to /authorize and is killed with SIGKILL at a random moment, 50 times, each
 * time restarted on the same workspace (same ledger, keys, stale lock). Nothing is acknowledged
 * before it is durable (DESIGN.md section 2), so after every restart each request that received a
 * 200 must find its records in the ledger file: the `policy.decided` at `ledger.seq` with the
 * response's actionId and the leaf hash the response named, followed by the `actionpass.issued`
 * of its pass. At the end the ledger verifies with `svc verify-export`.
 *
 * Seeded: SVC_PROXY_CRASH_SEED=<n> replays the same delays (the kill itself races the process).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../children/seeded-random.js';
import { chatAction, get, makeWorkspace, removeWorkspace, request, startProxyProcess, svc, type DecisionBody, type ProxyProcess } from '../support/proxy.js';

const KILLS = 50;
const CLIENTS = 16;
const SEED = Number(process.env.SVC_PROXY_CRASH_SEED ?? 20261121);

interface Ack {
  kill: number;
  seq: number;
  hash: string;
  actionId: string;
  passId: string;
}

/** Line offsets of a ledger file; only the lines a check needs are hashed and parsed. */
class LedgerFile {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];

  private constructor(private readonly bytes: Buffer) {
    let start = 0;
    for (let end = bytes.indexOf(0x0a, start); end !== -1; end = bytes.indexOf(0x0a, start)) {
      this.starts.push(start);
      this.ends.push(end);
      start = end + 1;
    }
  }

  static async read(path: string): Promise<LedgerFile> {
    return new LedgerFile(await readFile(path));
  }

  get size(): number {
    return this.starts.length;
  }

  line(seq: number): Buffer | undefined {
    const start = this.starts[seq];
    return start === undefined ? undefined : this.bytes.subarray(start, this.ends[seq]);
  }

  /** The actionpass.issued record of an action, looked for in the records after its decision. */
  passOf(actionId: string, decisionSeq: number): unknown {
    const needle = Buffer.from(`"actionId":"${actionId}"`);
    for (let seq = decisionSeq + 1; seq < Math.min(this.size, decisionSeq + 5000); seq += 1) {
      const line = this.line(seq) as Buffer;
      if (line.includes(needle) && line.includes('"type":"actionpass.issued"')) return this.record(seq);
    }
    return undefined;
  }

  hash(seq: number): string | undefined {
    const line = this.line(seq);
    return line && `sha256:${createHash('sha256').update(Buffer.from([0])).update(line).digest('hex')}`;
  }

  record(seq: number): { seq: number; type: string; data: Record<string, any> } | undefined {
    const line = this.line(seq);
    return line && JSON.parse(line.toString('utf8'));
  }
}

/** Posts allowed actions until the proxy stops answering; every 200 is acknowledged work. */
async function client(proxy: ProxyProcess, agent: http.Agent, kill: number, id: number, acks: Ack[], stats: { errors: number; other: number }): Promise<void> {
  for (let n = 0; ; n += 1) {
    let answer;
    try {
      answer = await request<DecisionBody>(proxy.url, { method: 'POST', path: '/authorize', agent, headers: { 'content-type': 'application/json' }, // One agent per client and round: the chat budget (500 an hour per agent) never runs out.
      body: JSON.stringify(chatAction('deploys', `kill ${kill} client ${id} request ${n}`, { actor: { agentId: `agent:crash-k${kill}-c${id}` } })) });
    } catch {
      stats.errors += 1;
      return; // the proxy is gone
    }
    if (answer.status !== 200) {
      stats.other += 1;
      continue;
    }
    const body = answer.body;
    expect(body.decision.decision).toBe('allow');
    expect(body.actionPass?.claims.decisionSeq).toBe(body.ledger.seq);
    acks.push({ kill, seq: body.ledger.seq, hash: body.ledger.hash, actionId: body.action.actionId, passId: body.actionPass?.claims.jti as string });
  }
}

function checkAcks(ledger: LedgerFile, acks: readonly Ack[], afterKill: number): void {
  for (const ack of acks) {
    const where = `request acknowledged before kill ${ack.kill}, checked after restart ${afterKill}: seq ${ack.seq} of ${ledger.size}`;
    expect(ledger.hash(ack.seq), where).toBe(ack.hash);
    expect(ledger.record(ack.seq), where).toMatchObject({ seq: ack.seq, type: 'policy.decided', data: { actionId: ack.actionId, decision: 'allow' } });
    // The pass is signed off the main thread and recorded after its decision, with other
    // requests' records in between; it was durable before the answer, so it must be there.
    expect(ledger.passOf(ack.actionId, ack.seq), where).toMatchObject({ type: 'actionpass.issued', data: { actionId: ack.actionId, passId: ack.passId } });
  }
}

describe('svc proxy killed with SIGKILL under load', () => {
  it(`keeps every acknowledged decision across ${KILLS} kills and restarts, and the ledger verifies`, async () => {
    const random = seededRandom(SEED);
    const ws = await makeWorkspace({ prefix: 'svc-proxy-crash-' });
    const acks: Ack[] = [];
    const stats = { errors: 0, other: 0, restartsChecked: 0 };

    for (let kill = 1; kill <= KILLS; kill += 1) {
      const proxy = await startProxyProcess({ configFile: ws.configFile, env: ws.env });
      // The restart recovered the ledger; everything acknowledged so far is in it.
      checkAcks(await LedgerFile.read(ws.ledger), acks, kill - 1);
      stats.restartsChecked += 1;
      const health = await get(proxy.url, '/healthz');
      expect(health.status, JSON.stringify(health.body)).toBe(200);

      const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
      const acked = acks.length;
      const clients = Array.from({ length: CLIENTS }, (_, id) => client(proxy, agent, kill, id, acks, stats));
      // Kill at a random moment once load is flowing: on a busy machine the first answers of a
      // fresh process can take longer than the whole random window.
      for (let waited = 0; acks.length === acked && waited < 5000; waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.floor(random() * 180)));
      const exit = await proxy.stop('SIGKILL');
      expect(exit.signal).toBe('SIGKILL');
      await Promise.all(clients);
      agent.destroy();
    }

    // A last restart recovers the last kill; a clean stop writes the final checkpoint.
    const proxy = await startProxyProcess({ configFile: ws.configFile, env: ws.env });
    checkAcks(await LedgerFile.read(ws.ledger), acks, KILLS);
    expect(await proxy.stop('SIGTERM')).toEqual({ code: 0, signal: null });

    expect(stats.restartsChecked).toBe(KILLS);
    expect(stats.other).toBe(0);
    // Load reached the proxy in (nearly) every round; the kills cut requests short.
    expect(new Set(acks.map((ack) => ack.kill)).size).toBeGreaterThan(KILLS / 2);
    expect(stats.errors).toBeGreaterThan(0);
    expect(new Set(acks.map((ack) => ack.seq)).size).toBe(acks.length);

    const verified = await svc(['verify-export', ws.ledger, '--json'], { env: ws.env });
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    const report = JSON.parse(verified.stdout) as { valid: boolean; records: number };
    expect(report.valid).toBe(true);
    process.stdout.write(`proxy crash: ${KILLS} SIGKILLs, ${acks.length} acknowledged decisions all found after restart, ledger of ${report.records} records verifies\n`);
    await removeWorkspace(ws);
  });
});
