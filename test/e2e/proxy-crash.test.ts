/**
 * Crash test of the whole proxy: the real `svc proxy` process serves 16 concurrent clients, most
 * posting allowed chat actions to /authorize and some to /actions (which deliver a file to the
 * outbox), and is killed with SIGKILL at a random moment, 50 times, each time restarted on the same
 * workspace (same ledger, keys, stale lock). Nothing is acknowledged before it is durable
 * (DESIGN.md section 2), so after every restart each request that received a 200 must find its
 * records in the ledger file: the `policy.decided` at `ledger.seq` with the response's actionId
 * and the leaf hash the response named, followed by the `actionpass.issued` of its pass; for an
 * executed /actions answer also its `execution.completed` with the equivalence pair, and the
 * delivered file, whose bytes hash to the executed payload hash. Every round kills a proxy that
 * has acknowledged both kinds of request. At the end the ledger verifies with `svc verify-export`.
 *
 * Seeded: SVC_PROXY_CRASH_SEED=<n> replays the same delays (the kill itself races the process).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../children/seeded-random.js';
import { chatAction, get, makeWorkspace, removeWorkspace, request, startProxyProcess, svc, type DecisionBody, type ProxyProcess } from '../support/proxy.js';

const KILLS = 50;
const CLIENTS = 16;
/** Clients 0 .. ACTION_CLIENTS-1 post to /actions, the others to /authorize. */
const ACTION_CLIENTS = 4;
/** How long a round may take to get its first answers of both kinds before the test gives up. */
const LOAD_TIMEOUT_MS = 30_000;
const SEED = Number(process.env.SVC_PROXY_CRASH_SEED ?? 20261121);
/** 51 proxy starts, each checking the whole ledger again: 1 to 4 s apiece on a busy 2-core machine. */
const TEST_TIMEOUT_MS = 300_000;

interface Ack {
  kill: number;
  seq: number;
  hash: string;
  actionId: string;
  passId: string;
  /** For an executed /actions answer: the pair and where the handler delivered the payload. */
  execution?: { payloadHash: string; path: string };
}

/** Line offsets of a ledger file; only the lines a check needs are hashed and parsed. */
class LedgerFile {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  /** actionId → the seq of its actionpass.issued and execution.completed records. */
  private readonly outcomes = new Map<string, { pass?: number; completed?: number }>();

  private constructor(private readonly bytes: Buffer) {
    let start = 0;
    for (let end = bytes.indexOf(0x0a, start); end !== -1; end = bytes.indexOf(0x0a, start)) {
      this.starts.push(start);
      this.ends.push(end);
      start = end + 1;
    }
    for (let seq = 0; seq < this.size; seq += 1) {
      const line = this.line(seq) as Buffer;
      const kind = line.includes('"type":"actionpass.issued"') ? 'pass' : line.includes('"type":"execution.completed"') ? 'completed' : undefined;
      if (kind === undefined) continue;
      const actionId = this.record(seq)?.data.actionId as string;
      this.outcomes.set(actionId, { ...this.outcomes.get(actionId), [kind]: seq });
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

  /** The actionpass.issued or execution.completed record of an action, when it comes after `afterSeq`. */
  outcomeOf(actionId: string, kind: 'pass' | 'completed', afterSeq: number): unknown {
    const seq = this.outcomes.get(actionId)?.[kind];
    return seq !== undefined && seq > afterSeq ? this.record(seq) : undefined;
  }

  hash(seq: number): string | undefined {
    const line = this.line(seq);
    return line && sha256(Buffer.concat([Buffer.from([0]), line]));
  }

  record(seq: number): { seq: number; type: string; data: Record<string, any> } | undefined {
    const line = this.line(seq);
    return line && JSON.parse(line.toString('utf8'));
  }
}

function sha256(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** The decision body, with the handler's result that /actions adds to `execution`. */
type ActionsBody = DecisionBody & { execution?: { result?: { path?: string } } };

/** Posts allowed actions until the proxy stops answering; every 200 is acknowledged work. */
async function client(proxy: ProxyProcess, agent: http.Agent, kill: number, id: number, acks: Ack[], stats: { errors: number; other: number }): Promise<void> {
  const path = id < ACTION_CLIENTS ? '/actions' : '/authorize';
  for (let n = 0; ; n += 1) {
    let answer;
    try {
      // One agent per client and round: the chat budget (500 an hour per agent) never runs out.
      const body = chatAction('deploys', `kill ${kill} client ${id} request ${n}`, { actor: { agentId: `agent:crash-k${kill}-c${id}` } });
      answer = await request<ActionsBody>(proxy.url, { method: 'POST', path, agent, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
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
    const ack: Ack = { kill, seq: body.ledger.seq, hash: body.ledger.hash, actionId: body.action.actionId, passId: body.actionPass?.claims.jti as string };
    if (path === '/actions') {
      expect(body.status, body.explanation).toBe('executed');
      expect(body.execution).toMatchObject({ outcome: 'succeeded', approvedPayloadHash: body.action.payloadHash, executedPayloadHash: body.action.payloadHash });
      ack.execution = { payloadHash: body.action.payloadHash, path: body.execution?.result?.path as string };
    }
    acks.push(ack);
  }
}

async function checkAcks(ledger: LedgerFile, outbox: string, acks: readonly Ack[], afterKill: number): Promise<void> {
  for (const ack of acks) {
    const where = `request acknowledged before kill ${ack.kill}, checked after restart ${afterKill}: seq ${ack.seq} of ${ledger.size}`;
    expect(ledger.hash(ack.seq), where).toBe(ack.hash);
    expect(ledger.record(ack.seq), where).toMatchObject({ seq: ack.seq, type: 'policy.decided', data: { actionId: ack.actionId, decision: 'allow' } });
    // The pass is signed off the main thread and recorded after its decision, with other
    // requests' records in between; it was durable before the answer, so it must be there.
    expect(ledger.outcomeOf(ack.actionId, 'pass', ack.seq), where).toMatchObject({ type: 'actionpass.issued', data: { actionId: ack.actionId, passId: ack.passId } });
    if (!ack.execution) continue;
    // An executed answer is sent after the side effect and its record are both done.
    const { payloadHash, path } = ack.execution;
    expect(ledger.outcomeOf(ack.actionId, 'completed', ack.seq), where).toMatchObject({
      type: 'execution.completed',
      data: { actionId: ack.actionId, passId: ack.passId, outcome: 'succeeded', approvedPayloadHash: payloadHash, executedPayloadHash: payloadHash },
    });
    expect(sha256(await readFile(join(outbox, path))), `${where}: the delivered file ${path}`).toBe(payloadHash);
  }
}

/** Waits until this round's proxy has acknowledged at least one request of each kind. */
async function loadFlowing(acks: readonly Ack[], from: number, kill: number): Promise<void> {
  const deadline = Date.now() + LOAD_TIMEOUT_MS;
  const has = (executed: boolean) => acks.slice(from).some((ack) => (ack.execution !== undefined) === executed);
  while (!(has(true) && has(false))) {
    if (Date.now() > deadline) throw new Error(`round ${kill}: no acknowledged /authorize and /actions answers within ${LOAD_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('svc proxy killed with SIGKILL under load', () => {
  it(`keeps every acknowledged decision and execution across ${KILLS} kills and restarts, and the ledger verifies`, async () => {
    const random = seededRandom(SEED);
    const ws = await makeWorkspace({ prefix: 'svc-proxy-crash-' });
    const acks: Ack[] = [];
    const stats = { errors: 0, other: 0, restartsChecked: 0 };

    for (let kill = 1; kill <= KILLS; kill += 1) {
      const proxy = await startProxyProcess({ configFile: ws.configFile, env: ws.env });
      // The restart recovered the ledger; everything acknowledged so far is in it.
      await checkAcks(await LedgerFile.read(ws.ledger), ws.outbox, acks, kill - 1);
      stats.restartsChecked += 1;
      const health = await get(proxy.url, '/healthz');
      expect(health.status, JSON.stringify(health.body)).toBe(200);

      const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
      const acked = acks.length;
      const clients = Array.from({ length: CLIENTS }, (_, id) => client(proxy, agent, kill, id, acks, stats));
      // Kill at a random moment once load is flowing: on a busy machine the first answers of a
      // fresh process can take longer than the whole random window.
      await loadFlowing(acks, acked, kill);
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.floor(random() * 180)));
      const exit = await proxy.stop('SIGKILL');
      expect(exit.signal).toBe('SIGKILL');
      await Promise.all(clients);
      agent.destroy();
    }

    // A last restart recovers the last kill; a clean stop writes the final checkpoint.
    const proxy = await startProxyProcess({ configFile: ws.configFile, env: ws.env });
    await checkAcks(await LedgerFile.read(ws.ledger), ws.outbox, acks, KILLS);
    expect(await proxy.stop('SIGTERM')).toEqual({ code: 0, signal: null });

    expect(stats.restartsChecked).toBe(KILLS);
    expect(stats.other).toBe(0);
    // Every kill landed on a proxy under load of both kinds, and cut requests short.
    expect(new Set(acks.map((ack) => ack.kill)).size).toBe(KILLS);
    expect(new Set(acks.filter((ack) => ack.execution).map((ack) => ack.kill)).size).toBe(KILLS);
    expect(stats.errors).toBeGreaterThan(0);
    expect(new Set(acks.map((ack) => ack.seq)).size).toBe(acks.length);

    const verified = await svc(['verify-export', ws.ledger, '--json'], { env: ws.env });
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    const report = JSON.parse(verified.stdout) as { valid: boolean; records: number; equivalence: { equivalent: number; blocked: number; violated: number } };
    expect(report.valid).toBe(true);
    const executions = acks.filter((ack) => ack.execution).length;
    // Killed requests may have executed without an answer; none may break a pair.
    expect(report.equivalence.violated).toBe(0);
    expect(report.equivalence.equivalent).toBeGreaterThanOrEqual(executions);
    process.stdout.write(`proxy crash: ${KILLS} SIGKILLs, ${acks.length} acknowledged answers (${executions} executed /actions) all found after restart, ledger of ${report.records} records verifies\n`);
    await removeWorkspace(ws);
  }, TEST_TIMEOUT_MS);
});
