import type { Agent } from 'node:http';
import type { LoadedConfig } from '../config/load-config.js';
import { SvcError } from '../errors.js';
import type { Enforcer } from '../proxy/enforcer.js';
import { decisionBody, type DecisionBody } from '../proxy/responses.js';

/**
 * Where a hook's actions are decided (issue 4, "two modes"): the proxy running for the workspace
 * (`POST /authorize`, marked `svc-source: hook`), or, when none runs, an Enforcer opened on the
 * same ledger under its writer lock. Both answer with the proxy's decision body, so the verdict
 * is computed the same way from either.
 */
export interface HookAuthorizer {
  readonly mode: 'proxy' | 'local';
  authorize(action: unknown): Promise<DecisionBody>;
  close(): Promise<void>;
}

export async function proxyAuthorizer(url: string, timeoutMs: number): Promise<HookAuthorizer> {
  // Loaded only here: a hook deciding locally does not pay for the HTTP client.
  const http = await import('node:http');
  // One connection for all the actions of a call.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return {
    mode: 'proxy',
    authorize: (action) => postJson(http.request, `${url}/authorize`, action, timeoutMs, agent),
    close: async () => agent.destroy(),
  };
}

/** Opens the ledger for writing; fails with `ledger_locked` while another process holds it. */
export async function localAuthorizer(loaded: LoadedConfig): Promise<HookAuthorizer> {
  const { Enforcer } = await import('../proxy/enforcer.js');
  const enforcer = await Enforcer.open(loaded, { signer: 'in-thread', resume: true });
  return { mode: 'local', authorize: authorizeWith(enforcer), close: () => enforcer.close() };
}

/** Decides a hook's action in-process, as `/authorize` with `svc-source: hook` would. */
export function authorizeWith(enforcer: Enforcer): (action: unknown) => Promise<DecisionBody> {
  return async (action) => {
    const decided = await enforcer.authorize(action, { source: 'hook' });
    // Hook actions are built by svc itself: one that does not validate is a bug, and fails closed.
    if ('invalid' in decided) throw new SvcError('schema_invalid', `the action built for this call is invalid: ${decided.invalid.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`);
    return decisionBody(decided);
  };
}

function postJson(request: typeof import('node:http').request, url: string, body: unknown, timeoutMs: number, agent: Agent): Promise<DecisionBody> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { agent, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), 'svc-source': 'hook' }, timeout: timeoutMs }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          reject(new SvcError('proxy_unavailable', `the proxy at ${url} answered ${response.statusCode} with a body that is not JSON`));
          return;
        }
        if (response.statusCode === 200) resolve(parsed as DecisionBody);
        else {
          const error = (parsed as { error?: { code?: string; message?: string } }).error;
          reject(new SvcError(error?.code ?? 'proxy_unavailable', `the proxy answered ${response.statusCode}: ${error?.message ?? 'no message'}`));
        }
      });
    });
    outgoing.on('timeout', () => outgoing.destroy(new SvcError('hook_timeout', `the proxy at ${url} did not answer within ${timeoutMs} ms`)));
    outgoing.on('error', (error) => reject(error instanceof SvcError ? error : new SvcError('proxy_unavailable', `the proxy at ${url} cannot be reached: ${error.message}`)));
    outgoing.end(payload);
  });
}
