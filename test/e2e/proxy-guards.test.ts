/**
 * The proxy's edges, against the real `svc proxy` process: it binds loopback only, refuses
 * requests for other host names (DNS rebinding) and from foreign origins (drive-by POSTs from web
 * pages), answers every bad body with a 4xx and one error body with a stable code, never allows
 * anything it could not parse, and fails closed with 503 when the ledger cannot be written.
 *
 * The unwritable ledger is real: the proxy runs under a file size limit (RLIMIT_FSIZE, bash
 * `ulimit -f`), so once the ledger grows past it the kernel refuses the write with EFBIG, exactly
 * as a full disk refuses it with ENOSPC. Node ignores SIGXFSZ, so the process lives on.
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  action,
  chatAction,
  get,
  makeWorkspace,
  post,
  readLedgerLines,
  recordsOfType,
  replaceFile,
  request,
  startProxyProcess,
  svc,
  type DecisionBody,
  type ErrorBody,
  type HttpAnswer,
  type ProxyProcess,
  type Workspace,
  IGNORE_SIGXFSZ,
} from '../support/proxy.js';
import { readFile } from 'node:fs/promises';

const CODE = /^[a-z][a-z0-9_]*$/;

function expectError(answer: HttpAnswer, status: number, code: string): ErrorBody['error'] {
  expect({ status: answer.status, body: answer.body }, answer.text).toMatchObject({ status, body: { error: { code } } });
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(typeof answer.body.error.message).toBe('string');
  expect(answer.body.actionPass).toBeUndefined();
  return answer.body.error;
}

describe('svc proxy binds loopback only', () => {
  let ws: Workspace;

  beforeAll(async () => {
    ws = await makeWorkspace();
  });

  for (const host of ['0.0.0.0', '192.168.1.5', '::', '10.1.2.3']) {
    it(`refuses --host ${host} at start: exit 2, bind_not_loopback on stderr, no ledger created`, async () => {
      const run = await svc(['proxy', '--config', ws.configFile, '--host', host, '--port', '0'], { env: ws.env });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('bind_not_loopback');
      expect(run.stderr).toContain(host);
      expect(run.stdout).toBe('');
      expect(existsSync(ws.ledger)).toBe(false);
    });
  }

  it('with --json the refusal is one JSON error body with the code', async () => {
    const run = await svc(['proxy', '--config', ws.configFile, '--host', '0.0.0.0', '--port', '0', '--json'], { env: ws.env });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'bind_not_loopback' } });
    expect(existsSync(ws.ledger)).toBe(false);
  });

  it('refuses a non-loopback proxy.host in svc.yml the same way', async () => {
    const other = await makeWorkspace();
    await replaceFile(other.configFile, (await readFile(other.configFile, 'utf8')).replace('host: 127.0.0.1', 'host: 0.0.0.0'));
    const run = await svc(['proxy', '--config', other.configFile, '--port', '0'], { env: other.env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('bind_not_loopback');
    expect(existsSync(other.ledger)).toBe(false);
  });

  it('accepts another loopback address (127.0.0.0/8)', async () => {
    const proxy = await startProxyProcess({ configFile: ws.configFile, env: ws.env, host: '127.0.0.2' });
    try {
      expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
      expect((await get(proxy.url, '/healthz', { host: `127.0.0.2:${proxy.port}` })).status).toBe(200);
    } finally {
      expect(await proxy.stop()).toEqual({ code: 0, signal: null });
    }
  });
});

describe('svc proxy refuses foreign hosts, foreign origins and bad bodies', () => {
  let ws: Workspace;
  let proxy: ProxyProcess;
  let passesBefore = 0;

  beforeAll(async () => {
    ws = await makeWorkspace();
    proxy = await startProxyProcess({ configFile: ws.configFile, env: ws.env });
    passesBefore = recordsOfType(await readLedgerLines(ws.ledger), 'actionpass.issued').length;
  });

  afterAll(async () => {
    await proxy?.stop('SIGKILL');
  });

  describe('Host header (DNS rebinding)', () => {
    for (const host of ['evil.example', 'attacker.com:7331', '127.0.0.1.evil.example', 'localhost.evil.example', '192.168.1.5', '[::2]', 'evil.example:PORT']) {
      it(`Host: ${host} → 403 host_not_loopback, for /authorize and /healthz`, async () => {
        const value = host.replace('PORT', String(proxy.port));
        expectError(await request(proxy.url, { method: 'POST', path: '/authorize', headers: { host: value, 'content-type': 'application/json' }, body: JSON.stringify(action()) }), 403, 'host_not_loopback');
        expectError(await request(proxy.url, { method: 'GET', path: '/healthz', headers: { host: value } }), 403, 'host_not_loopback');
      });
    }

    for (const host of ['localhost:PORT', '127.0.0.1:PORT', 'LOCALHOST:PORT', '[::1]:PORT', 'localhost', '127.0.0.1']) {
      it(`Host: ${host} is this machine → served`, async () => {
        const answer = await request<DecisionBody>(proxy.url, { method: 'POST', path: '/authorize', headers: { host: host.replace('PORT', String(proxy.port)), 'content-type': 'application/json' }, body: JSON.stringify(action()) });
        expect(answer.status).toBe(200);
        expect(answer.body.decision.decision).toBe('allow');
      });
    }

    it('a request without any Host header gets the one error body, not a bare 400', async () => {
      const answer = await request(proxy.url, { method: 'GET', path: '/healthz', headers: { host: undefined } });
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expect(answer.body?.error?.code, `status ${answer.status}, body ${JSON.stringify(answer.text)}`).toMatch(CODE);
    });
  });

  describe('Origin (drive-by requests from web pages)', () => {
    for (const origin of ['http://evil.example', 'https://evil.example', 'null', 'http://127.0.0.1:1', 'http://localhost:1', 'not a url', 'file://']) {
      it(`Origin: ${origin} → 403 origin_forbidden, and nothing decided`, async () => {
        const answer = await post(proxy.url, '/authorize', action(), { origin });
        expectError(answer, 403, 'origin_forbidden');
        expectError(await post(proxy.url, '/actions', action(), { origin }), 403, 'origin_forbidden');
      });
    }

    it('Origin of another local server (another localhost port) → 403', async () => {
      const other = proxy.port === 65_535 ? proxy.port - 1 : proxy.port + 1;
      expectError(await post(proxy.url, '/authorize', action(), { origin: `http://127.0.0.1:${other}` }), 403, 'origin_forbidden');
      expectError(await post(proxy.url, '/authorize', action(), { origin: `http://localhost:${other}`, host: `localhost:${proxy.port}` }), 403, 'origin_forbidden');
      // Same port, other scheme: another origin.
      expectError(await post(proxy.url, '/authorize', action(), { origin: `https://127.0.0.1:${proxy.port}` }), 403, 'origin_forbidden');
    });

    it('sec-fetch-site: cross-site → 403 even without an Origin', async () => {
      expectError(await post(proxy.url, '/authorize', action(), { 'sec-fetch-site': 'cross-site' }), 403, 'origin_forbidden');
    });

    it("the proxy's own origin is accepted", async () => {
      const same = await post<DecisionBody>(proxy.url, '/authorize', action(), { origin: proxy.url, 'sec-fetch-site': 'same-origin' });
      expect(same.status).toBe(200);
      expect(same.body.decision.decision).toBe('allow');
      const viaName = await post<DecisionBody>(proxy.url, '/authorize', action(), { origin: `http://localhost:${proxy.port}`, host: `localhost:${proxy.port}` });
      expect(viaName.status).toBe(200);
    });
  });

  describe('bodies', () => {
    const both = ['/authorize', '/actions'] as const;

    for (const path of both) {
      it(`${path}: a body that is not JSON → 415 unsupported_media_type`, async () => {
        expectError(await post(proxy.url, path, 'channel=eng&text=hi', { 'content-type': 'application/x-www-form-urlencoded' }), 415, 'unsupported_media_type');
        expectError(await post(proxy.url, path, '--x--\r\n', { 'content-type': 'multipart/form-data; boundary=x' }), 415, 'unsupported_media_type');
        expectError(await post(proxy.url, path, Buffer.from([1, 2, 3]), { 'content-type': 'application/octet-stream' }), 415, 'unsupported_media_type');
      });

      it(`${path}: text/plain (what a web page may send without a preflight) → 415, even when it holds a valid action`, async () => {
        expectError(await post(proxy.url, path, JSON.stringify(action()), { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
        expectError(await post(proxy.url, path, 'hello', { 'content-type': 'text/plain;charset=UTF-8' }), 415, 'unsupported_media_type');
      });

      it(`${path}: a body over 64 KiB → 413 body_too_large`, async () => {
        const big = JSON.stringify(action({ capability: { tool: 'chat.message.send', resource: 'channel:eng', payload: { channel: 'eng', text: 'x'.repeat(65 * 1024) } } }));
        expect(Buffer.byteLength(big)).toBeGreaterThan(64 * 1024);
        expectError(await post(proxy.url, path, big), 413, 'body_too_large');
      });

      it(`${path}: invalid, truncated or empty JSON → 400 json_invalid / body_empty`, async () => {
        expectError(await post(proxy.url, path, '{bad'), 400, 'json_invalid');
        expectError(await post(proxy.url, path, JSON.stringify(action()).slice(0, 80)), 400, 'json_invalid');
        expectError(await post(proxy.url, path, Buffer.from([0xff, 0xfe, 0x7b, 0x7d])), 400, 'json_invalid');
        expectError(await post(proxy.url, path, ''), 400, 'body_empty');
      });

      it(`${path}: a __proto__ or constructor.prototype key → 400 with one stable code`, async () => {
        const top = `{"__proto__":{"polluted":true},${JSON.stringify(action()).slice(1)}`;
        const inPayload = JSON.stringify(action()).replace('"payload":{', '"payload":{"__proto__":{"polluted":true},');
        const ctor = JSON.stringify(action()).replace('"payload":{', '"payload":{"constructor":{"prototype":{"polluted":true}},');
        const codes = new Set<string>();
        for (const body of [top, inPayload, ctor]) {
          const answer = await post(proxy.url, path, body);
          expect(answer.status, answer.text).toBe(400);
          expect(['json_invalid', 'schema_invalid']).toContain(answer.body.error.code);
          codes.add(answer.body.error.code);
        }
        expect(codes.size).toBe(1);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      });

      it(`${path}: payload nested deeper than 32 → 400 schema_invalid naming the path`, async () => {
        let deep: unknown = 'bottom';
        for (let level = 0; level < 40; level += 1) deep = [deep];
        const error = expectError(await post(proxy.url, path, action({ capability: { tool: 'chat.message.send', resource: 'channel:eng', payload: { channel: 'eng', text: 'x', deep } } })), 400, 'schema_invalid');
        expect(error.issues?.[0]?.path).toMatch(/^capability\.payload\.deep(\.0)+$/);
        // 32 levels is the limit, not an error (a tool without a handler: no payload contract but depth).
        let ok: unknown = 'bottom';
        for (let level = 0; level < 30; level += 1) ok = [ok];
        const answer = await post(proxy.url, '/authorize', action({ capability: { tool: 'crm.note.add', resource: 'note:1', payload: { text: 'x', ok } } }));
        expect(answer.status).toBe(200);
        expect(answer.body.decision.reasons).toEqual(['default_deny']);
      });

      it(`${path}: a string over 16 KiB → 400 schema_invalid`, async () => {
        const error = expectError(await post(proxy.url, path, action({ capability: { tool: 'chat.message.send', resource: 'channel:eng', payload: { channel: 'eng', text: 'y'.repeat(16 * 1024 + 1) } } })), 400, 'schema_invalid');
        expect(error.issues?.map((issue) => issue.path)).toContain('capability.payload.text');
      });

      it(`${path}: numbers beyond ±2^53 or not finite → 400 schema_invalid`, async () => {
        for (const raw of ['1e300', '-1e300', '1e400', '18014398509481984']) {
          const body = JSON.stringify(action({ capability: { tool: 'chat.message.send', resource: 'channel:eng', payload: { channel: 'eng', text: 'n', n: 0 } } })).replace('"n":0', `"n":${raw}`);
          const error = expectError(await post(proxy.url, path, body), 400, 'schema_invalid');
          expect(error.issues?.map((issue) => issue.path)).toContain('capability.payload.n');
        }
      });

      it(`${path}: a lone UTF-16 surrogate (no JCS form) in a string or a key → 400 schema_invalid, not 500`, async () => {
        const inText = JSON.stringify(action({ capability: { tool: 'chat.message.send', resource: 'channel:eng', payload: { channel: 'eng', text: 'x' } } })).replace('"text":"x"', '"text":"\\ud800"');
        expect(JSON.parse(inText).capability.payload.text).toBe('\ud800');
        expectError(await post(proxy.url, path, inText), 400, 'schema_invalid');
        const inKey = JSON.stringify(action()).replace('"payload":{', '"payload":{"\\udfff":1,');
        expectError(await post(proxy.url, path, inKey), 400, 'schema_invalid');
        const inGoal = JSON.stringify(action({ intent: { taskId: 'task-1', declaredGoal: 'x' } })).replace('"declaredGoal":"x"', '"declaredGoal":"a\\udc00b"');
        expectError(await post(proxy.url, path, inGoal), 400, 'schema_invalid');
      });

      it(`${path}: an unknown top-level key, a wrong schemaVersion, a wrong type → 400 schema_invalid with issues`, async () => {
        const unknown = expectError(await post(proxy.url, path, { ...action(), extra: true }), 400, 'schema_invalid');
        expect(JSON.stringify(unknown.issues)).toContain('extra');
        const version = expectError(await post(proxy.url, path, { ...action(), schemaVersion: 'svc.action.v1' }), 400, 'schema_invalid');
        expect(version.issues?.map((issue) => issue.path)).toContain('schemaVersion');
        const typed = expectError(await post(proxy.url, path, action({ actor: { agentId: 42 } })), 400, 'schema_invalid');
        expect(typed.issues?.map((issue) => issue.path)).toContain('actor.agentId');
        for (const body of ['null', '[]', '"action"', '7', 'true']) expectError(await post(proxy.url, path, body), 400, 'schema_invalid');
      });
    }

    it('/actions: a payload the handler cannot send as given → 400 schema_invalid; a tool with no handler → 400', async () => {
      const mismatch = expectError(await post(proxy.url, '/actions', action({ capability: { tool: 'chat.message.send', resource: 'channel:eng', payload: { channel: 'ops', text: 'x' } } })), 400, 'schema_invalid');
      expect(mismatch.issues?.map((issue) => issue.path)).toContain('capability.payload.channel');
      const noHandler = await post(proxy.url, '/actions', action({ capability: { tool: 'db.query.run', resource: 'db:main', payload: { sql: 'select 1' } } }));
      expect(noHandler.status).toBe(400);
      expect(noHandler.body.error.code).toMatch(CODE);
    });

    it('unknown routes and methods → 404 not_found', async () => {
      expectError(await get(proxy.url, '/nope'), 404, 'not_found');
      expectError(await post(proxy.url, '/authorise', action()), 404, 'not_found');
      expectError(await get(proxy.url, '/authorize'), 404, 'not_found');
      expectError(await request(proxy.url, { method: 'DELETE', path: '/actions' }), 404, 'not_found');
      expectError(await request(proxy.url, { method: 'PUT', path: '/approvals/x/artifact', headers: { 'content-type': 'application/json' }, body: '{}' }), 404, 'not_found');
    });

    it('approval endpoints refuse bad bodies with 4xx and the error body', async () => {
      expectError(await post(proxy.url, '/approvals/apr_x/artifact', {}), 400, 'schema_invalid');
      expectError(await post(proxy.url, '/approvals/apr_x/artifact', { artifact: 'a.b.c' }), 404, 'approval_unknown');
      expect((await post(proxy.url, '/approvals/apr_x/reject', { rejectedBy: 'user:lead@acme.example', reason: 'no' })).status).toBe(404);
      expectError(await post(proxy.url, '/approvals/apr_x/reject', { rejectedBy: 'user:lead@acme.example', reason: 'no' }), 404, 'approval_unknown');
    });
  });

  it('none of the refused requests decided anything or issued a pass, and the proxy is healthy', async () => {
    const lines = await readLedgerLines(ws.ledger);
    const issued = recordsOfType(lines, 'actionpass.issued');
    // Only the requests that were served on purpose (loopback Host names, same origin) got passes.
    const served = issued.slice(passesBefore).map((line) => line.record.data.claims.resource as string);
    expect(served.every((resource) => resource === 'channel:eng')).toBe(true);
    expect(served.length).toBe(6 + 2);
    expect((await get(proxy.url, '/healthz')).status).toBe(200);
    expect(proxy.child.exitCode).toBeNull();
  });
});

describe('svc proxy when the ledger cannot be written', () => {
  /** Posts allowed actions until one is not answered 200; returns the served bodies and the first other answer. */
  async function fillLedger(proxy: ProxyProcess): Promise<{ served: DecisionBody[]; refused: HttpAnswer | undefined }> {
    const served: DecisionBody[] = [];
    for (let attempt = 0; attempt < 200; attempt += 1) {
      const answer = await post<DecisionBody>(proxy.url, '/authorize', chatAction('eng', `build ${attempt} is green`));
      if (answer.status !== 200) return { served, refused: answer };
      served.push(answer.body);
    }
    return { served, refused: undefined };
  }

  it('answers 503 ledger_unavailable, never a pass, and recovers on restart with every acknowledged record', async () => {
    const ws = await makeWorkspace();
    // 40 KiB: start-up (genesis, config.loaded, keys, trust.json) fits; ~15 allowed actions later the ledger does not.
    const limited = await startProxyProcess({ configFile: ws.configFile, env: ws.env, fileSizeLimitKiB: 40, nodeArgs: ['--import', IGNORE_SIGXFSZ] });
    const { served, refused } = await fillLedger(limited);
    expect(served.length).toBeGreaterThan(0);
    expect(refused, 'the ledger never filled up').toBeDefined();
    expectError(refused as HttpAnswer, 503, 'ledger_unavailable');
    for (const body of served) expect(body.actionPass?.token).toBeDefined();

    // Fail closed from then on: decisions of any kind, executions, health.
    expectError(await post(limited.url, '/authorize', chatAction('eng', 'after the failure')), 503, 'ledger_unavailable');
    expectError(await post(limited.url, '/authorize', chatAction('random', 'a deny cannot be recorded either')), 503, 'ledger_unavailable');
    expectError(await post(limited.url, '/actions', chatAction('eng', 'must not be delivered')), 503, 'ledger_unavailable');
    const health = await get(limited.url, '/healthz');
    expect(health.status).toBe(503);
    expect(health.body.ok).toBe(false);
    expect(limited.child.exitCode).toBeNull();
    expect(await readdir(join(ws.outbox, 'chat', 'eng')).catch(() => [])).toEqual([]);
    await limited.stop('SIGKILL');

    // Restart without the limit: the torn tail is recovered and every acknowledged record is there.
    const proxy = await startProxyProcess({ configFile: ws.configFile, env: ws.env });
    const lines = await readLedgerLines(ws.ledger);
    for (const body of served) {
      const line = lines[body.ledger.seq];
      expect(line?.hash).toBe(body.ledger.hash);
      expect(line?.record).toMatchObject({ type: 'policy.decided', data: { actionId: body.action.actionId, decision: 'allow' } });
      const pass = lines.slice(body.ledger.seq + 1).find((next) => next.record.type !== 'ledger.checkpoint');
      expect(pass?.record).toMatchObject({ type: 'actionpass.issued', data: { passId: body.actionPass?.claims.jti } });
    }
    const passes = recordsOfType(lines, 'actionpass.issued').map((line) => line.record.data.passId as string);
    expect(passes.sort()).toEqual(served.map((body) => body.actionPass?.claims.jti as string).sort());
    const after = await post<DecisionBody>(proxy.url, '/actions', chatAction('eng', 'back in business'));
    expect(after.body.status).toBe('executed');
    expect(await proxy.stop()).toEqual({ code: 0, signal: null });
    const verified = await svc(['verify-export', ws.ledger], { env: ws.env });
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
  });

  it('survives a write past the file size limit (SIGXFSZ) and keeps answering 503, instead of dying', async () => {
    // Without the preload: what an operator gets under `ulimit -f` or systemd LimitFSIZE=.
    const ws = await makeWorkspace();
    const limited = await startProxyProcess({ configFile: ws.configFile, env: ws.env, fileSizeLimitKiB: 40 });
    let outcome: { served: DecisionBody[]; refused: HttpAnswer | undefined } | Error;
    try {
      outcome = await fillLedger(limited);
    } catch (error) {
      outcome = error as Error;
    }
    expect(outcome instanceof Error ? outcome.message : outcome.refused?.status).toBe(503);
    const next = await post(limited.url, '/authorize', chatAction('eng', 'still there?')).catch((error: Error) => error);
    expect(next instanceof Error ? `${next.message}; proxy exit ${JSON.stringify(await limited.exited)}` : next.status).toBe(503);
    expect(limited.child.signalCode).toBeNull();
  });
});

describe('malformed HTTP', () => {
  it('a request line the HTTP parser rejects gets a 400 with the one error body', async () => {
    const ws = await makeWorkspace();
    const proxy = await startProxyProcess({ configFile: ws.configFile, env: ws.env });
    try {
      const text = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(proxy.port, '127.0.0.1');
        let out = '';
        socket.on('data', (chunk) => (out += chunk.toString('utf8')));
        socket.on('end', () => resolve(out));
        socket.on('error', reject);
        socket.end('NOT-HTTP\r\n\r\n');
      });
      expect(text).toMatch(/^HTTP\/1\.1 400 /);
      const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as ErrorBody;
      expect(body.error.code).toMatch(CODE);
      expect((await get(proxy.url, '/healthz')).status).toBe(200);
    } finally {
      await proxy.stop('SIGKILL');
    }
  });
});
