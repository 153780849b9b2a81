import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { LoadedConfig } from '../config/load-config.js';
import { SvcError } from '../errors.js';
import type { Decided, Enforcer, Executed, RequestOptions } from './enforcer.js';
import { answerInvalidHttp, errorBody, isProxyErrorCode, PROXY_ERROR_STATUS, type ProxyErrorCode } from './error-body.js';
import { registerHookRoute } from './hook-route.js';
import { isAllowedOrigin, isLoopbackHostHeader } from './loopback-guard.js';
import { decisionBodyJson } from './decision-body-json.js';

/** DESIGN.md section 3: the proxy reads at most 64 KiB of body. */
export const MAX_BODY_BYTES = 64 * 1024;
const MAX_APPROVAL_HEADER = 16 * 1024;

/** fastify's own errors for a body it could not read, in our error vocabulary. */
const FASTIFY_ERRORS: Record<string, { code: ProxyErrorCode; message: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'body_too_large', message: `the body exceeds ${MAX_BODY_BYTES} bytes` },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'unsupported_media_type', message: 'send the action as JSON with content-type: application/json' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'body_empty', message: 'the body is empty; send a normalized action (svc.action.v0) as JSON' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'body_invalid', message: 'the content-length does not match the body' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'json_invalid', message: 'the body is not valid JSON' },
};

/** Every error answer goes through here, so its status is always the documented one for its code. */
function sendError(reply: FastifyReply, code: ProxyErrorCode, message: string, issues?: { path: string; message: string }[]): FastifyReply {
  return reply.code(PROXY_ERROR_STATUS[code]).send(errorBody(code, message, issues));
}

/**
 * The loopback proxy as a fastify instance: `/authorize`, `/actions`, the approval endpoints for
 * tools, and `/healthz`. Every answer is either a decision (200) or the one error body.
 */
export function buildProxyApp(enforcer: Enforcer, options: { hookConfig?: () => LoadedConfig } = {}): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: MAX_BODY_BYTES,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
    // A request without Host reaches the loopback guard (403 host_not_loopback), not Node's bare 400.
    http: { requireHostHeader: false },
    // Bytes the HTTP parser rejects still get the one error body.
    clientErrorHandler: answerInvalidHttp,
  });
  // JSON only: text/plain is what a web page can POST without a CORS preflight.
  app.removeContentTypeParser('text/plain');

  app.addHook('onRequest', async (request, reply) => {
    if (!isLoopbackHostHeader(request.headers.host)) {
      return sendError(reply, 'host_not_loopback', 'the Host header must name this machine (localhost or a loopback address); requests for other names are refused to stop DNS rebinding');
    }
    const origin = request.headers.origin;
    if (!isAllowedOrigin(origin, request.headers.host) || request.headers['sec-fetch-site'] === 'cross-site') {
      return sendError(reply, 'origin_forbidden', `browser requests from ${origin ?? 'another site'} are refused; only the proxy's own origin may call it`);
    }
    return undefined;
  });

  app.setNotFoundHandler((request, reply) => {
    void sendError(reply, 'not_found', `no route ${request.method} ${request.url.split('?')[0] ?? ''}; see docs/http-api.md`);
  });

  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const known = error.code ? FASTIFY_ERRORS[error.code] : undefined;
    if (known) return sendError(reply, known.code, known.message);
    // A code missing from PROXY_ERROR_STATUS is a bug (callers could not know it), reported as one.
    if (error instanceof SvcError && isProxyErrorCode(error.code)) return sendError(reply, error.code, error.message);
    if (!(error instanceof SvcError) && error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      // Another request fastify could not read: the caller's fault, never a 500.
      return sendError(reply, 'body_invalid', error.message);
    }
    process.stderr.write(`svc proxy: internal error: ${error instanceof SvcError ? `[${error.code}] ` : ''}${error.stack ?? error.message}\n`);
    return sendError(reply, 'internal_error', 'an internal error occurred; nothing was allowed');
  });

  app.post('/authorize', async (request, reply) => {
    const result = await enforcer.authorize(request.body, requestOptions(request));
    if ('invalid' in result) return invalid(reply, result.invalid);
    return sendDecision(reply, result);
  });

  app.post('/actions', async (request, reply) => {
    const result = await enforcer.execute(request.body, requestOptions(request));
    if ('invalid' in result) return invalid(reply, result.invalid);
    return sendDecision(reply, result);
  });

  if (options.hookConfig) registerHookRoute(app, enforcer, options.hookConfig);

  app.get('/healthz', async (_request, reply) => {
    const health = enforcer.health();
    return reply.code(health.ok ? 200 : 503).send(health);
  });

  app.get('/approvals', async () => ({ approvals: enforcer.openApprovals().map(approvalSummary) }));

  app.get<{ Params: { id: string } }>('/approvals/:id', async (request) => {
    const approval = enforcer.approval(request.params.id);
    if (!approval) throw new SvcError('approval_unknown', `no open approval ${request.params.id}`);
    return { approval: { ...approvalSummary(approval), action: approval.action } };
  });

  app.post<{ Params: { id: string } }>('/approvals/:id/artifact', async (request) => {
    const artifact = field(request.body, 'artifact');
    const { approval, receipt } = await enforcer.grantApproval(request.params.id, artifact);
    return { approval: approvalSummary(approval), ledger: { seq: receipt.seq, hash: receipt.hash } };
  });

  app.post<{ Params: { id: string } }>('/approvals/:id/reject', async (request) => {
    const rejectedBy = field(request.body, 'rejectedBy');
    if (!/^user:[^\s@]+@[^\s@]+$/.test(rejectedBy)) throw new SvcError('schema_invalid', 'rejectedBy must be user:<email>');
    const receipt = await enforcer.rejectApproval(request.params.id, rejectedBy, field(request.body, 'reason'));
    return { approval: { approvalId: request.params.id, status: 'rejected' }, ledger: { seq: receipt.seq, hash: receipt.hash } };
  });

  return app;
}

/** The content type fastify gives a serialized object: a decision sent as text goes out with the same headers. */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A decision body (DESIGN.md section 7), sent as its JSON text: the same bytes fastify would serialize. */
function sendDecision(reply: FastifyReply, decided: Decided | Executed): FastifyReply {
  return reply.type(JSON_CONTENT_TYPE).send(decisionBodyJson(decided));
}

function requestOptions(request: FastifyRequest): RequestOptions {
  const source = actionSource(request.headers['svc-source']);
  const header = request.headers['svc-approval'];
  if (header === undefined) return { source };
  if (typeof header !== 'string' || header.length === 0 || header.length > MAX_APPROVAL_HEADER) {
    throw new SvcError('approval_invalid', 'the svc-approval header must be one approval id or one approval artifact');
  }
  return { source, presentedApproval: header.trim() };
}

/**
 * `svc-source: hook` marks a runtime hook's request: no matching rule is then "no opinion", and a
 * step_up finds its approval by payload hash. Neither can turn a deny into an allow.
 */
function actionSource(header: string | string[] | undefined): 'proxy' | 'hook' {
  if (header === undefined) return 'proxy';
  if (header === 'hook') return 'hook';
  throw new SvcError('schema_invalid', 'the svc-source header, when present, must be "hook"');
}

function invalid(reply: FastifyReply, issues: { path: string; message: string }[]) {
  const first = issues[0];
  return sendError(reply, 'schema_invalid', `not a valid svc.action.v0 action${first ? `: ${first.path}: ${first.message}` : ''}`, issues);
}

function field(body: unknown, name: string): string {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > 16_384) throw new SvcError('schema_invalid', `the body needs a string field "${name}"`);
  return value;
}

function approvalSummary(approval: { approvalId: string; actionId: string; status: string; actionHash: string; payloadHash: string; requestedAt: string; approvedBy?: string }) {
  const { approvalId, actionId, status, actionHash, payloadHash, requestedAt } = approval;
  return { approvalId, actionId, status, actionHash, payloadHash, requestedAt, ...(approval.approvedBy !== undefined && { approvedBy: approval.approvedBy }) };
}
