import { generateKeyPairSync, hash, randomFillSync, sign, type KeyObject } from 'node:crypto';
import { openSync, write, fdatasync } from 'node:fs';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import Fastify from 'fastify';

/**
 * A reference for the proxy benchmark: only the work an allow from `POST /authorize` needs under
 * svc's formats, with every check and all policy left out. Per request: hash the action and its
 * payload; write three ledger records (`action.received`, `policy.decided`, `actionpass.issued`),
 * each with its prevHash, its RFC 6962 leaf hash and one interior Merkle hash (a tree of n leaves
 * has n - 1); sign the pass, an Ed25519 JWS, on a worker thread in batches; group-commit the
 * records (one `write` and one `fdatasync` per batch of up to 32, two batches in flight); answer
 * with a body of svc's shape and size once all three are durable.
 *
 * It is not svc: no validation, no canonical JSON (plain JSON.stringify), no policy, no budgets,
 * no runtime state, no checkpoints, no fencing. It is plain code, with the cheap tunings svc has
 * too (one-shot hashes, random ids drawn in bulk, signatures batched per turn of the event loop):
 * not a proof that nothing faster exists, but what the contract's steps alone cost on this stack.
 *
 *   node dist/bench/contract-floor-server.js <ledger file> [--no-sync] [--no-sign]
 *
 * prints {"url":"http://127.0.0.1:<port>","publicKeyJwk":{...}} once listening; SIGTERM stops
 * it. `--no-sync` skips the fdatasync (the records are still written), `--no-sign` puts the
 * unsigned claims where the token goes: each shows what one part of the contract costs.
 */

const JWS_HEADER = Buffer.from(JSON.stringify({ alg: 'EdDSA', kid: 'svc.local/org:acme/pass-floor', typ: 'svc-actionpass+jwt' })).toString('base64url');
const POLICY_HASH = `sha256:${'3d'.repeat(32)}`;
const BATCH_RECORDS = 32;
const COMMITS_IN_FLIGHT = 2;

interface BenchAction {
  actor: { agentId: string };
  capability: { tool: string; resource: string; payload: unknown };
}

/** The signer thread: receives batches of claims JSON, answers with their compact JWS, in order. */
function runSignerThread(key: KeyObject): void {
  parentPort?.on('message', (batch: string[]) => {
    parentPort?.postMessage(
      batch.map((claimsJson) => {
        const input = `${JWS_HEADER}.${Buffer.from(claimsJson).toString('base64url')}`;
        return `${input}.${sign(null, Buffer.from(input), key).toString('base64url')}`;
      }),
    );
  });
}

/** Batches the claims of one turn of the event loop into one message to the signer thread. */
function batchingSigner(key: KeyObject): (claimsJson: string) => Promise<string> {
  const worker = new Worker(new URL(import.meta.url), { workerData: key });
  worker.unref();
  const sent: ((token: string) => void)[][] = [];
  let batch: string[] = [];
  let waiting: ((token: string) => void)[] = [];
  worker.on('message', (tokens: string[]) => {
    const resolvers = sent.shift() ?? [];
    tokens.forEach((token, index) => resolvers[index]?.(token));
  });
  return (claimsJson) =>
    new Promise((resolve) => {
      if (batch.length === 0) {
        queueMicrotask(() => {
          sent.push(waiting);
          worker.postMessage(batch);
          batch = [];
          waiting = [];
        });
      }
      batch.push(claimsJson);
      waiting.push(resolve);
    });
}

/** Appends lines with a hash chain and a Merkle hash each; resolves each once it is durable. */
function groupCommitLedger(path: string, sync: boolean): (record: (prevHash: string) => string) => Promise<string> {
  const fd = openSync(path, 'a');
  let lines: string[] = [];
  let acks: { resolve: () => void; reject: (error: Error) => void }[] = [];
  let inFlight = 0;
  let prevHash = `sha256:${'0'.repeat(64)}`;
  let merkleNode = Buffer.alloc(32);
  const interior = Buffer.alloc(65, 1);
  const commit = (): void => {
    if (inFlight >= COMMITS_IN_FLIGHT || lines.length === 0) return;
    const bytes = Buffer.from(lines.splice(0, BATCH_RECORDS).join(''));
    const batchAcks = acks.splice(0, BATCH_RECORDS);
    inFlight += 1;
    const done = (error: Error | null): void => {
      inFlight -= 1;
      for (const ack of batchAcks) (error ? ack.reject(error) : ack.resolve());
      commit();
    };
    write(fd, bytes, 0, bytes.length, null, (error) => (error || !sync ? done(error) : fdatasync(fd, done)));
  };
  return (record) => {
    const line = record(prevHash);
    const leaf = hash('sha256', `\0${line}`, 'buffer');
    merkleNode.copy(interior, 1);
    leaf.copy(interior, 33);
    merkleNode = hash('sha256', interior, 'buffer');
    prevHash = `sha256:${leaf.toString('hex')}`;
    const recordHash = prevHash;
    lines.push(`${line}\n`);
    const durable = new Promise<string>((resolve, reject) => acks.push({ resolve: () => resolve(recordHash), reject }));
    commit();
    return durable;
  };
}

const sha256 = (text: string): string => `sha256:${hash('sha256', text, 'hex')}`;

// Random bytes drawn 4 KiB at a time: one call per id costs several microseconds.
let randomPool = '';
function newId(prefix: string): string {
  if (randomPool.length < 16) randomPool = randomFillSync(Buffer.allocUnsafe(4096)).toString('base64url');
  const id = `${prefix}_${randomPool.slice(0, 16)}`;
  randomPool = randomPool.slice(16);
  return id;
}

async function main(): Promise<void> {
  const [ledgerPath, ...flags] = process.argv.slice(2);
  if (!ledgerPath) throw new Error('usage: contract-floor-server.js <ledger file> [--no-sync] [--no-sign]');
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const signClaims = flags.includes('--no-sign') ? async (claimsJson: string) => claimsJson : batchingSigner(privateKey);
  const append = groupCommitLedger(ledgerPath, !flags.includes('--no-sync'));
  let seq = 0;

  const app = Fastify({ logger: false });
  app.post('/authorize', async (request) => {
    const action = request.body as BenchAction;
    const actionHash = sha256(JSON.stringify(action));
    const payloadHash = sha256(JSON.stringify(action.capability.payload));
    const actionId = newId('act');
    const passId = newId('pass');
    const stream = `action:${actionId}`;
    const ts = new Date().toISOString();
    const decision = { actionId, decision: 'allow', policyHash: POLICY_HASH, reasons: ['rule_allow'], ruleId: 'chat-allowlisted-channels' };
    const received = append((prevHash) => JSON.stringify({ data: { action, actionHash, actionId, payloadHash, source: 'proxy' }, prevHash, seq: ++seq, stream, ts, type: 'action.received', v: 0 }));
    const decisionSeq = seq + 1;
    const decided = append((prevHash) => JSON.stringify({ data: decision, prevHash, seq: ++seq, stream, ts, type: 'policy.decided', v: 0 }));
    const iat = Math.floor(Date.now() / 1000);
    const claims = { actionHash, actionId, aud: 'svc.adapters', decisionSeq, exp: iat + 300, iat, iss: 'svc.local', jti: passId, nbf: iat, payloadHash, policyHash: POLICY_HASH, resource: action.capability.resource, sub: action.actor.agentId, tenant: 'org:acme', tool: action.capability.tool };
    const token = await signClaims(JSON.stringify(claims));
    const issued = append((prevHash) => JSON.stringify({ data: { actionId, claims, passId, token }, prevHash, seq: ++seq, stream, ts: new Date().toISOString(), type: 'actionpass.issued', v: 0 }));
    const [, decidedHash] = await Promise.all([received, decided, issued]);
    return {
      status: 'decided',
      decision: { decision: 'allow', reasons: decision.reasons, ruleId: decision.ruleId, policyHash: POLICY_HASH },
      explanation: 'allowed by rule chat-allowlisted-channels: channel "eng" is in [eng, ops, deploys] (rule_allow)',
      action: { actionId, actionHash, payloadHash },
      ledger: { seq: decisionSeq, hash: decidedHash, record: { type: 'policy.decided', payloadHash } },
      actionPass: { token, claims },
    };
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('contract floor server: no TCP address');
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}`, publicKeyJwk: publicKey.export({ format: 'jwk' }) })}\n`);
  process.once('SIGTERM', () => void app.close().finally(() => process.exit(0)));
}

if (isMainThread) {
  main().catch((error: unknown) => {
    process.stderr.write(`contract floor server: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(2);
  });
} else {
  runSignerThread(workerData as KeyObject);
}
