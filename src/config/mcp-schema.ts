import * as z from 'zod';
import { choice, namedRecord, pathField, section, wholeNumber } from './field-schemas.js';

/**
 * The `mcp:` section of svc.yml: the upstream MCP servers `svc mcp serve` may wrap, where their
 * tool-definition pins live, and what a tool without a pin gets (docs/mcp.md).
 *
 * A server is started from a command (stdio) or reached at a streamable-HTTP URL. Credentials
 * never appear here: `env` names the variables passed through from svc's own environment, and
 * `bearerTokenEnv` names the variable holding an HTTP server's token.
 */

/** Also the `<server>` of `mcp.<server>.<tool>`, `mcp:<server>` and the ledger stream `mcp:<server>`. */
export const MCP_SERVER_NAME = /^[a-z][a-z0-9_-]{0,63}$/;
const SERVER_NAME_MESSAGE = 'a server name is lowercase letters, digits, "_" or "-", starting with a letter (at most 64)';
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const ENV_MESSAGE = 'name an environment variable to pass through (for example GITHUB_TOKEN), never its value';
const TOKEN_ENV_MESSAGE = 'name the environment variable that holds the token (for example GITHUB_TOKEN), never the token itself';
const LOOPBACK_HOST = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\])$/;

export const mcpServerNameSchema = z.string().regex(MCP_SERVER_NAME, SERVER_NAME_MESSAGE);

const serverSchema = () =>
  section('{ command: github-mcp-server, env: [GITHUB_TOKEN] } or { url: https://mcp.example.com/mcp }', {
    /** Executable of a stdio server, looked up on PATH. */
    command: z.string({ error: 'expected the command that starts the server, for example npx' }).min(1, 'expected the command that starts the server, for example npx').max(4096).optional(),
    args: z.array(z.string({ error: 'an argument is text; quote numbers and flags, for example "--port"' }).max(16_384), { error: 'expected a list of arguments, for example [-y, some-mcp-server]' }).max(256).optional(),
    /** Names of environment variables passed through to the server; nothing else of svc's environment is, beyond PATH, HOME, USER, LOGNAME, SHELL and TERM. */
    env: z.array(z.string({ error: ENV_MESSAGE }).regex(ENV_NAME, ENV_MESSAGE), { error: 'expected a list of environment variable names, for example [GITHUB_TOKEN]' }).max(256).optional(),
    /** Working directory of a stdio server, relative to svc.yml (default: the directory svc runs in). */
    cwd: pathField('tools/github').optional(),
    /** A streamable-HTTP server: https anywhere, or http on a loopback address. */
    url: z
      .string({ error: 'expected an http(s) URL, for example https://mcp.example.com/mcp' })
      .max(4096)
      .refine((text) => urlProblem(text) === undefined, { error: (issue) => urlProblem(String(issue.input)) ?? 'invalid URL' })
      .optional(),
    /** The environment variable holding a bearer token for an HTTP server. */
    bearerTokenEnv: z.string({ error: TOKEN_ENV_MESSAGE }).regex(ENV_NAME, TOKEN_ENV_MESSAGE).optional(),
  }).superRefine((server, context) => {
    if ((server.command === undefined) === (server.url === undefined)) {
      context.addIssue({ code: 'custom', message: 'a server has either command (stdio) or url (streamable HTTP), not both and not neither' });
    }
    if (server.url !== undefined) {
      for (const key of ['args', 'env', 'cwd'] as const) {
        if (server[key] !== undefined) context.addIssue({ code: 'custom', path: [key], message: `${key} applies to a command server, not to a url server` });
      }
    }
    if (server.command !== undefined && server.bearerTokenEnv !== undefined) {
      context.addIssue({ code: 'custom', path: ['bearerTokenEnv'], message: 'bearerTokenEnv applies to a url server; pass a command server its token with env' });
    }
  });

export type McpServerConfig = z.infer<ReturnType<typeof serverSchema>>;

/** The section's schema, built on first use (config/schema.ts builds it only when svc.yml has an `mcp:` section). */
export const mcpConfigSchema = () =>
  section('{ servers: { github: { command: github-mcp-server } } }', {
    /** The pin lock, relative to svc.yml; meant to be committed. */
    lock: pathField('svc.mcp.lock').default('svc.mcp.lock'),
    /** A tool seen for the first time: `pin` signs its definition into the lock, `require` leaves it unpinned until `svc mcp pins approve`. */
    firstUse: choice(['pin', 'require']).default('pin'),
    /** What a call of an unpinned tool gets: `deny`, or `step_up` (a reviewer approves that exact call). */
    unpinned: choice(['deny', 'step_up']).default('deny'),
    /** How long an upstream may take to answer one request before the agent gets an error. */
    requestTimeoutSeconds: wholeNumber('seconds', 1, 3600, 60).default(60),
    /** Largest JSON-RPC message accepted from the agent (one line on stdin); larger ones are answered with an error. */
    maxMessageBytes: wholeNumber('bytes', 1024, 64 * 1024 * 1024, 4 * 1024 * 1024).default(4 * 1024 * 1024),
    servers: namedRecord(MCP_SERVER_NAME, SERVER_NAME_MESSAGE, serverSchema(), '{ github: { command: github-mcp-server } }').default({}),
  });

/** What the schema makes of an absent `mcp:` section. */
export const mcpDefaults = (): McpConfig => ({ lock: 'svc.mcp.lock', firstUse: 'pin', unpinned: 'deny', requestTimeoutSeconds: 60, maxMessageBytes: 4 * 1024 * 1024, servers: {} });

export type McpConfig = z.infer<ReturnType<typeof mcpConfigSchema>>;

function urlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'expected an http(s) URL, for example https://mcp.example.com/mcp';
  }
  if (url.username !== '' || url.password !== '') return 'a URL may not carry credentials; name the token variable with bearerTokenEnv';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOST.test(url.hostname)) return undefined;
  if (url.protocol === 'http:') return 'plain http is accepted only on a loopback address (127.0.0.1, localhost, [::1]); use https';
  return 'expected an http(s) URL, for example https://mcp.example.com/mcp';
}
