import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { SvcError } from '../errors.js';
import { answerInvalidHttp, errorBody } from '../proxy/error-body.js';
import { FixedWindowLimiter, type RateLimitOptions } from './rate-limit.js';
import { PlaygroundSandbox } from './sandbox.js';
import { runScenario, SCENARIOS, scenarioInfo } from './scenarios.js';

/**
 * `svc playground`: the public, credential-free page and its API (SPEC.md 1.4, 4.1, 8). It may
 * bind any address: it holds no credentials, reaches no provider and executes nothing. Every
 * answer is computed by the real engine in a throwaway sandbox (`PlaygroundSandbox`).
 */
export const PLAYGROUND_BODY_LIMIT = 4096;
export const DEFAULT_PLAYGROUND_PORT = 7332;

export interface PlaygroundAppOptions {
  /** Requests for this Host (the playground subdomain) are redirected to /playground. */
  subdomainHost?: string;
  /** Per-client window (`now`: its clock, for tests); `false` lifts it (benchmarks only). */
  rateLimit?: Pick<RateLimitOptions, 'max' | 'windowMs' | 'now'> | false;
  /** Take the client address from X-Forwarded-For (behind a reverse proxy you run). */
  trustProxy?: boolean;
  /** Decisions per command ledger before a fresh one. */
  rotateAfter?: number;
}

export const DEFAULT_RATE_LIMIT = { max: 60, windowMs: 60_000 };

const CSP = ["default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"].join('; ');

const FASTIFY_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'body_too_large', message: `the body exceeds ${PLAYGROUND_BODY_LIMIT} bytes` },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'unsupported_media_type', message: 'send {"command": "..."} as JSON with content-type: application/json' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'body_empty', message: 'the body is empty; send {"command": "<shell command>"}' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'body_invalid', message: 'the content-length does not match the body' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'json_invalid', message: 'the body is not valid JSON' },
};

const STATUS_OF: Record<string, number> = { scenario_unknown: 404, ledger_unavailable: 503 };

interface Asset {
  type: string;
  body: Buffer;
}

export interface PlaygroundApp {
  app: FastifyInstance;
  sandbox: PlaygroundSandbox;
  close(): Promise<void>;
}

export async function buildPlaygroundApp(options: PlaygroundAppOptions = {}): Promise<PlaygroundApp> {
  const sandbox = await PlaygroundSandbox.create(options.rotateAfter !== undefined ? { rotateAfter: options.rotateAfter } : {});
  const assets = loadAssets();
  const limits = options.rateLimit === false ? undefined : new FixedWindowLimiter(options.rateLimit ?? DEFAULT_RATE_LIMIT);
  const subdomain = options.subdomainHost?.toLowerCase();

  const app = Fastify({
    logger: false,
    bodyLimit: PLAYGROUND_BODY_LIMIT,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
    trustProxy: options.trustProxy ?? false,
    clientErrorHandler: answerInvalidHttp,
  });
  app.removeContentTypeParser('text/plain');

  app.addHook('onRequest', async (request, reply) => {
    void reply.headers({ 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY', 'cross-origin-opener-policy': 'same-origin' });
    const path = request.url.split('?')[0] ?? '';
    const host = (request.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
    if (subdomain !== undefined && host === subdomain && !path.startsWith('/playground') && !path.startsWith('/api/playground')) {
      return reply.redirect('/playground', 302);
    }
    if (limits && path.startsWith('/api/playground') && !(request.method === 'GET' && path === '/api/playground')) {
      const verdict = limits.take(request.ip);
      if (!verdict.ok) {
        return reply
          .code(429)
          .header('retry-after', String(verdict.retryAfterSeconds))
          .send(errorBody('rate_limited', `too many requests from this client; try again in ${verdict.retryAfterSeconds} s`));
      }
    }
    return undefined;
  });

  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send(errorBody('not_found', `no route ${request.method} ${request.url.split('?')[0] ?? ''}; GET /api/playground describes the API`));
  });

  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const known = error.code ? FASTIFY_ERRORS[error.code] : undefined;
    if (known) return reply.code(known.status).send(errorBody(known.code, known.message));
    if (error instanceof SvcError) return reply.code(STATUS_OF[error.code] ?? 400).send(errorBody(error.code, error.message));
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) return reply.code(error.statusCode).send(errorBody('body_invalid', error.message));
    process.stderr.write(`svc playground: internal error: ${error.stack ?? error.message}\n`);
    return reply.code(500).send(errorBody('internal_error', 'an internal error occurred'));
  });

  app.get('/', async (_request, reply) => reply.redirect('/playground', 302));
  app.get('/favicon.ico', async (_request, reply) => reply.code(204).send());

  app.get<{ Querystring: { s?: unknown } }>('/playground', async (request, reply) => {
    const page = assets.get('index.html') as Asset;
    const s = request.query.s;
    const known = s === undefined || (typeof s === 'string' && scenarioInfo(s) !== undefined);
    return reply.code(known ? 200 : 404).type(page.type).header('cache-control', 'no-cache').send(page.body);
  });

  app.get<{ Params: { file: string } }>('/playground/static/:file', async (request, reply) => sendAsset(reply, assets.get(request.params.file)));
  app.get<{ Params: { file: string } }>('/playground/vendor/noble-hashes/:file', async (request, reply) => sendAsset(reply, assets.get(`noble-hashes/${request.params.file}`)));
  app.get<{ Params: { file: string } }>('/playground/vendor/noble-ed25519/:file', async (request, reply) => sendAsset(reply, assets.get(`noble-ed25519/${request.params.file}`)));
  app.get<{ Params: { file: string } }>('/playground/docs/:file', async (request, reply) => sendAsset(reply, assets.get(`docs/${request.params.file}`)));

  app.get('/api/playground', async () => ({
    scenarios: SCENARIOS.map((scenario) => ({ ...scenario, href: `/playground?s=${scenario.id}`, api: `/api/playground/scenarios/${scenario.id}` })),
    command: { method: 'POST', path: '/api/playground', contentType: 'application/json', maxBodyBytes: PLAYGROUND_BODY_LIMIT, example: { command: 'cp .env /tmp/x' } },
    keys: sandbox.publicKeys,
  }));

  const scenarioRoute = async (request: FastifyRequest<{ Params: { id: string } }>) => runScenario(sandbox, request.params.id);
  app.get<{ Params: { id: string } }>('/api/playground/scenarios/:id', scenarioRoute);
  app.post<{ Params: { id: string } }>('/api/playground/scenarios/:id', { bodyLimit: PLAYGROUND_BODY_LIMIT }, scenarioRoute);

  app.post('/api/playground', { bodyLimit: PLAYGROUND_BODY_LIMIT }, async (request) => {
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new SvcError('body_invalid', 'send a JSON object: {"command": "<shell command>"}');
    const command = (body as Record<string, unknown>).command;
    if (command === undefined) throw new SvcError('command_missing', 'the body needs a "command" field: {"command": "<shell command>"}');
    if (typeof command !== 'string') throw new SvcError('command_invalid', '"command" must be a string');
    if (command.trim() === '') throw new SvcError('command_invalid', '"command" is empty');
    return { ...(await sandbox.evaluateCommand(command)), keys: sandbox.publicKeys };
  });

  return {
    app,
    sandbox,
    async close() {
      await app.close();
      await sandbox.close();
    },
  };
}

function sendAsset(reply: FastifyReply, asset: Asset | undefined) {
  if (asset === undefined) return reply.code(404).send(errorBody('not_found', 'no such file'));
  return reply.type(asset.type).header('cache-control', 'public, max-age=300').send(asset.body);
}

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.md': 'text/markdown; charset=utf-8', '.png': 'image/png', '.svg': 'image/svg+xml' };

function typeOf(file: string): string {
  const extension = file.slice(file.lastIndexOf('.'));
  return TYPES[extension] ?? 'application/octet-stream';
}

/** The page, the two noble libraries (ESM, loaded by the browser as they are) and two docs, read once at start. */
function loadAssets(): Map<string, Asset> {
  const here = dirname(fileURLToPath(import.meta.url));
  const assets = new Map<string, Asset>();
  const publicDir = join(here, 'public');
  for (const file of ['index.html', 'playground.js', 'verify.js', 'jcs.js', 'playground.css']) {
    assets.set(file, { type: typeOf(file), body: readFileSync(join(publicDir, file)) });
  }
  const require = createRequire(import.meta.url);
  const hashesDir = dirname(require.resolve('@noble/hashes/sha2.js'));
  for (const file of ['sha2.js', '_md.js', '_u64.js', 'utils.js']) assets.set(`noble-hashes/${file}`, { type: typeOf(file), body: readFileSync(join(hashesDir, file)) });
  const edDir = dirname(require.resolve('@noble/ed25519'));
  assets.set('noble-ed25519/index.js', { type: typeOf('index.js'), body: readFileSync(join(edDir, 'index.js')) });
  // docs/ is beside src/ in a checkout (dist/src/playground or src/playground): served when present.
  for (const root of [resolve(here, '../../..'), resolve(here, '../..')]) {
    for (const doc of ['tokens.md', 'ledger-format.md', 'playground.md']) {
      const file = join(root, 'docs', doc);
      if (!assets.has(`docs/${doc}`) && existsSync(file)) assets.set(`docs/${doc}`, { type: typeOf(doc), body: readFileSync(file) });
    }
  }
  return assets;
}
