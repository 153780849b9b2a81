/**
 * The playground's HTTP edges: the 4 KiB cap is applied before parsing, each client's window
 * trips and recovers, every malformed request gets a clear 4xx in the one error body, and no
 * generated command or body yields a 5xx. Every scenario answers with its expected decision,
 * computed on request.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPlaygroundApp, PLAYGROUND_BODY_LIMIT, type PlaygroundApp } from '../../src/playground/server.js';

let playground: PlaygroundApp;
let limited: PlaygroundApp;
/** The limited app's clock, moved by the test: a window of wall time would close early on a slow machine. */
let limiterNow = 0;

beforeAll(async () => {
  playground = await buildPlaygroundApp({ rateLimit: false, rotateAfter: 2000 });
  limited = await buildPlaygroundApp({ rateLimit: { max: 3, windowMs: 400, now: () => limiterNow }, subdomainHost: 'play.example.org' });
});

afterAll(async () => {
  await playground?.close();
  await limited?.close();
});

function post(app: PlaygroundApp, payload: string | Buffer, contentType = 'application/json', remoteAddress = '127.0.0.1') {
  return app.app.inject({ method: 'POST', url: '/api/playground', remoteAddress, headers: { 'content-type': contentType }, payload });
}

describe('GET /api/playground', () => {
  it('lists the six scenarios with id, title, summary and replay', async () => {
    const response = await playground.app.inject({ method: 'GET', url: '/api/playground' });
    expect(response.statusCode).toBe(200);
    const body = response.json() as { scenarios: { id: string; title: string; summary: string; replay: boolean }[] };
    expect(body.scenarios.map((scenario) => scenario.id)).toEqual([
      'approval-payload-mismatch',
      'chat-channel-not-allowlisted',
      'external-recipient-step-up',
      'database-select-only',
      'mcp-definition-changed',
      'prompt-injection-shell-read',
    ]);
    for (const scenario of body.scenarios) {
      expect(typeof scenario.title).toBe('string');
      expect(typeof scenario.summary).toBe('string');
      expect(typeof scenario.replay).toBe('boolean');
    }
    expect(body.scenarios.filter((scenario) => scenario.replay).map((scenario) => scenario.id)).toEqual(['database-select-only']);
  });
});

describe('scenarios, computed on request', () => {
  const expected: Record<string, { decision: string; reasons: string[] }> = {
    'approval-payload-mismatch': { decision: 'blocked', reasons: ['approval_payload_hash_mismatch'] },
    'chat-channel-not-allowlisted': { decision: 'deny', reasons: ['channel_not_allowlisted'] },
    'external-recipient-step-up': { decision: 'step_up', reasons: ['external_recipient'] },
    'database-select-only': { decision: 'allow', reasons: ['rule_allow'] },
    'mcp-definition-changed': { decision: 'deny', reasons: ['mcp_tool_definition_changed'] },
    'prompt-injection-shell-read': { decision: 'deny', reasons: ['protected_path_read'] },
  };
  for (const [id, outcome] of Object.entries(expected)) {
    it(`${id}: ${outcome.decision}`, async () => {
      const first = await playground.app.inject({ method: 'GET', url: `/api/playground/scenarios/${id}` });
      expect(first.statusCode).toBe(200);
      const run = first.json() as { decision: string; reasons: string[]; action: { actionHash: string; payloadHash: string }; ledger: { hash: string }; evidence: Record<string, unknown> };
      expect(run.decision).toBe(outcome.decision);
      expect(run.reasons).toEqual(outcome.reasons);
      for (const hash of [run.action.actionHash, run.action.payloadHash, run.ledger.hash]) expect(hash).toMatch(/^sha256:[0-9a-f]{64}$/);
      // Computed each time, on a fresh ledger: a second run seals a different ledger record.
      const second = (await playground.app.inject({ method: 'POST', url: `/api/playground/scenarios/${id}` })).json() as typeof run;
      expect(second.decision).toBe(outcome.decision);
      expect(second.ledger.hash).not.toBe(run.ledger.hash);
    });
  }

  it('scenario 1 shows the approved and executed hashes side by side, different', async () => {
    const run = (await playground.app.inject({ method: 'GET', url: '/api/playground/scenarios/approval-payload-mismatch' })).json() as { evidence: { approvedPayloadHash: string; executedPayloadHash: string }; action: { payloadHash: string }; links: unknown[] };
    expect(run.evidence.approvedPayloadHash).not.toBe(run.evidence.executedPayloadHash);
    expect(run.evidence.executedPayloadHash).toBe(run.action.payloadHash);
    expect(run.links.length).toBe(2);
  });

  it('scenario 3 proceeds only after the exact payload-bound approval: an ActionPass is then issued', async () => {
    const run = (await playground.app.inject({ method: 'GET', url: '/api/playground/scenarios/external-recipient-step-up' })).json() as { evidence: { afterApproval: { status: string; actionPassIssued: boolean; payloadHash: string } }; action: { payloadHash: string }; verify: { token?: { kind: string } } };
    expect(run.evidence.afterApproval).toMatchObject({ status: 'decided', actionPassIssued: true, payloadHash: run.action.payloadHash });
    expect(run.verify.token?.kind).toBe('actionpass');
  });

  it('scenario 4 denies the write before execution and labels the backstop as deterministic replay', async () => {
    const run = (await playground.app.inject({ method: 'GET', url: '/api/playground/scenarios/database-select-only' })).json() as { replay: boolean; evidence: { write: { decision: string; reasons: string[]; executed: boolean }; providerBackstop: { label: string; sqlstate?: string; message?: string }[]; classifications: { class: string }[] } };
    expect(run.replay).toBe(true);
    expect(run.evidence.write).toMatchObject({ decision: 'deny', reasons: ['sql_write_denied'], executed: false });
    expect(run.evidence.classifications.map((entry) => entry.class)).toEqual(['read', 'write']);
    expect(run.evidence.providerBackstop.every((entry) => entry.label === 'deterministic replay')).toBe(true);
    expect(run.evidence.providerBackstop[1]).toMatchObject({ sqlstate: '25006', message: 'cannot execute UPDATE in a read-only transaction' });
  });

  it('an unknown scenario id is a 404 with the error body', async () => {
    const response = await playground.app.inject({ method: 'GET', url: '/api/playground/scenarios/no-such-thing' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ error: { code: 'scenario_unknown' } });
    const page = await playground.app.inject({ method: 'GET', url: '/playground?s=no-such-thing' });
    expect(page.statusCode).toBe(404);
  });
});

describe('POST /api/playground', () => {
  it('denies cp .env /tmp/x because of its source read, with payload and ledger hashes for every file operation', async () => {
    const response = await post(playground, JSON.stringify({ command: 'cp .env /tmp/x' }));
    expect(response.statusCode).toBe(200);
    const body = response.json() as { decision: string; reasons: string[]; actions: { label: string; fileOperation: boolean; decision: string; reasons: string[]; payloadHash: string; ledger: { hash: string } }[] };
    expect(body.decision).toBe('deny');
    expect(body.reasons).toEqual(['protected_path_read']);
    const files = body.actions.filter((action) => action.fileOperation);
    expect(files.map((action) => action.label)).toEqual([expect.stringMatching(/^read .*\/workspace\/\.env \(cp source\)$/), 'write /tmp/x (cp destination)']);
    expect(files[0]).toMatchObject({ decision: 'deny', reasons: ['protected_path_read'] });
    for (const action of files) {
      expect(action.payloadHash).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(action.ledger.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
  });

  it('walks a recursive read inside the sandbox, and denies one outside it without listing the host', async () => {
    const inside = (await post(playground, JSON.stringify({ command: 'grep -r KEY .' }))).json() as { decision: string; actions: { label: string; decision: string }[] };
    expect(inside.decision).toBe('deny');
    expect(inside.actions.find((action) => action.decision === 'deny')?.label).toMatch(/\/workspace\/\.env \(grep argument, inside .*\/workspace\)$/);
    for (const command of ['grep -r x /', 'find / -name "*.key" -exec cat {} +', `grep -r x ${process.cwd()}`]) {
      const response = await post(playground, JSON.stringify({ command }));
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ decision: 'deny', reasons: ['playground_outside_sandbox'], actions: [] });
      expect(response.body).not.toContain(`${process.cwd()}/`);
    }
  });

  it('answers step_up and no opinion as decisions', async () => {
    expect((await post(playground, JSON.stringify({ command: 'git push origin main' }))).json()).toMatchObject({ decision: 'step_up', reasons: ['risky_command'] });
    expect((await post(playground, JSON.stringify({ command: 'cat src/app.ts' }))).json()).toMatchObject({ decision: 'no_opinion' });
  });

  it('refuses 4 KiB + 1 byte before parsing (413 even for a body that is not JSON)', async () => {
    const command = 'x'.repeat(PLAYGROUND_BODY_LIMIT - JSON.stringify({ command: '' }).length);
    const exact = JSON.stringify({ command });
    expect(Buffer.byteLength(exact)).toBe(PLAYGROUND_BODY_LIMIT);
    expect((await post(playground, exact)).statusCode).toBe(200);
    const over = await post(playground, `${exact} `);
    expect(over.statusCode).toBe(413);
    expect(over.json()).toMatchObject({ error: { code: 'body_too_large' } });
    const garbage = await post(playground, '{'.repeat(PLAYGROUND_BODY_LIMIT + 1));
    expect(garbage.statusCode).toBe(413);
  });

  it('refuses an oversized chunked body over a real socket with 413', async () => {
    const address = await limited.app.listen({ host: '127.0.0.1', port: 0 });
    const big = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"command":"'));
        controller.enqueue(new TextEncoder().encode('a'.repeat(PLAYGROUND_BODY_LIMIT)));
        controller.enqueue(new TextEncoder().encode('"}'));
        controller.close();
      },
    });
    const response = await fetch(`${address}/api/playground`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big, duplex: 'half' } as RequestInit);
    expect(response.status).toBe(413);
  });

  it('gives clear 4xx errors for malformed JSON, missing or non-string command, wrong content type', async () => {
    const cases: [string | Buffer, string, number, string][] = [
      ['{"command": ', 'application/json', 400, 'json_invalid'],
      ['{}', 'application/json', 400, 'command_missing'],
      ['{"command": 42}', 'application/json', 400, 'command_invalid'],
      ['{"command": ["ls"]}', 'application/json', 400, 'command_invalid'],
      ['{"command": ""}', 'application/json', 400, 'command_invalid'],
      ['[1,2]', 'application/json', 400, 'body_invalid'],
      ['"ls"', 'application/json', 400, 'body_invalid'],
      ['{"__proto__": {"x": 1}, "command": "ls"}', 'application/json', 400, 'json_invalid'],
      ['command=ls', 'application/x-www-form-urlencoded', 415, 'unsupported_media_type'],
      ['{"command": "ls"}', 'text/plain', 415, 'unsupported_media_type'],
    ];
    for (const [body, type, status, code] of cases) {
      const response = await post(playground, body, type);
      expect({ body, status: response.statusCode, code: (response.json() as { error?: { code: string } }).error?.code }).toEqual({ body, status, code });
    }
  });

  it('limits each client per window with 429 and Retry-After, then recovers', async () => {
    const body = JSON.stringify({ command: 'ls' });
    const client = '10.1.2.3';
    for (let index = 0; index < 3; index += 1) expect((await post(limited, body, 'application/json', client)).statusCode).toBe(200);
    const refused = await post(limited, body, 'application/json', client);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.json()).toMatchObject({ error: { code: 'rate_limited' } });
    // Another client is not limited by this one.
    expect((await limited.app.inject({ method: 'POST', url: '/api/playground', remoteAddress: '10.9.8.7', headers: { 'content-type': 'application/json' }, payload: body })).statusCode).toBe(200);
    limiterNow += 399;
    expect((await post(limited, body, 'application/json', client)).statusCode).toBe(429);
    limiterNow += 1;
    expect((await post(limited, body, 'application/json', client)).statusCode).toBe(200);
  });

  it('redirects the playground subdomain to /playground and sets strict security headers', async () => {
    const redirected = await limited.app.inject({ method: 'GET', url: '/', headers: { host: 'play.example.org' } });
    expect(redirected.statusCode).toBe(302);
    expect(redirected.headers.location).toBe('/playground');
    const other = await limited.app.inject({ method: 'GET', url: '/anything', headers: { host: 'play.example.org:8443' } });
    expect(other.headers.location).toBe('/playground');
    const page = await limited.app.inject({ method: 'GET', url: '/playground' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });
});

describe('fuzz', () => {
  it('5,000+ generated commands and bodies never yield a 5xx', async () => {
    const statuses = new Map<number, number>();
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    const shellish = fc.array(fc.constantFrom('cat', 'cp', '.env', '/tmp/x', '~/.ssh/id_ed25519', '$(', ')', '|', '>', '<', '&&', ';', '"', "'", '`', '*', 'src/*', 'rm -rf /', 'git push', '\\', '\n', '$HOME', '${X:-.env}', 'find . -exec cat {} +', 'tar c .', '<<EOF', 'xargs'), { maxLength: 12 }).map((parts) => parts.join(' '));
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 100 }), shellish), async (command) => {
        const response = await post(playground, JSON.stringify({ command }));
        count(response.statusCode);
        expect(response.statusCode).toBeLessThan(500);
      }),
      { numRuns: 3500 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.json({ maxDepth: 3 }),
          fc.string({ maxLength: 300 }),
          fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
          fc.record({ command: fc.anything({ maxDepth: 2 }) }).map((value) => { try { return JSON.stringify(value) ?? 'null'; } catch { return '{}'; } }),
        ),
        fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/octet-stream'),
        async (body, type) => {
          const response = await post(playground, body, type);
          count(response.statusCode);
          expect(response.statusCode).toBeLessThan(500);
        },
      ),
      { numRuns: 1600 },
    );
    const total = [...statuses.values()].reduce((sum, value) => sum + value, 0);
    expect(total).toBeGreaterThanOrEqual(5000);
  }, 300_000);
});

describe('sandbox', () => {
  it('decides concurrent scenario runs and commands, each scenario on a ledger of its own', async () => {
    const ids = ['approval-payload-mismatch', 'external-recipient-step-up', 'database-select-only', 'prompt-injection-shell-read'];
    const answers = await Promise.all([
      ...ids.flatMap((id) => [id, id].map((same) => playground.app.inject({ method: 'GET', url: `/api/playground/scenarios/${same}` }))),
      ...['cp .env /tmp/a', 'cat ~/.ssh/id_ed25519', 'ls'].map((command) => post(playground, JSON.stringify({ command }))),
    ]);
    expect(answers.map((answer) => answer.statusCode)).toEqual(answers.map(() => 200));
    const decisions = answers.slice(0, ids.length * 2).map((answer) => (answer.json() as { decision: string }).decision);
    expect(decisions).toEqual(['blocked', 'blocked', 'step_up', 'step_up', 'allow', 'allow', 'deny', 'deny']);
  });

  it('replaces the command ledger with a fresh one after rotateAfter decisions', async () => {
    const small = await buildPlaygroundApp({ rateLimit: false, rotateAfter: 4 });
    try {
      const seqs: number[] = [];
      for (let index = 0; index < 4; index += 1) {
        const answer = (await small.app.inject({ method: 'POST', url: '/api/playground', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ command: 'cat src/app.ts' }) })).json() as { actions: { ledger: { seq: number } }[] };
        seqs.push(answer.actions[0]?.ledger.seq ?? -1);
      }
      // Two decisions per command: the third command starts on a new ledger.
      expect(seqs[2]).toBeLessThan(seqs[1] as number);
      expect(seqs[0]).toBe(seqs[2]);
    } finally {
      await small.close();
    }
  });

  it('unknown scenario ids, generated, are 404 with the error body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 60 }).filter((id) => !/[/?#%]/.test(id)), async (id) => {
        const response = await playground.app.inject({ method: 'GET', url: `/api/playground/scenarios/${encodeURIComponent(id)}` });
        expect(response.statusCode).toBe(404);
        expect((response.json() as { error: { code: string } }).error.code).toMatch(/^(scenario_unknown|not_found)$/);
      }),
      { numRuns: 300 },
    );
  });
});
