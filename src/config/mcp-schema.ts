import * as z from 'zod';

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
const LOOPBACK_HOST = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\])$/;

export const mcpServerNameSchema = z.string().regex(MCP_SERVER_NAME, SERVER_NAME_MESSAGE);

const serverSchema = z
  .strictObject({
    /** Executable of a stdio server, looked up on PATH. */
    command: z.string().min(1).max(4096).optional(),
    args: z.array(z.string().max(16_384)).max(256).optional(),
    /** Names of environment variables passed through to the server; nothing else of svc's environment is, beyond PATH, HOME, USER, LOGNAME, SHELL and TERM. */
    env: z.array(z.string().regex(ENV_NAME, 'name an environment variable to pass through (for example GITHUB_TOKEN), never its value')).max(256).optional(),
    /** Working directory of a stdio server, relative to svc.yml (default: the directory svc runs in). */
    cwd: z.string().min(1).max(4096).optional(),
    /** A streamable-HTTP server: https anywhere, or http on a loopback address. */
    url: z
      .string()
      .max(4096)
      .refine((text) => urlProblem(text) === undefined, { error: (issue) => urlProblem(String(issue.input)) ?? 'invalid URL' })
      .optional(),
    /** The environment variable holding a bearer token for an HTTP server. */
    bearerTokenEnv: z.string().regex(ENV_NAME, 'name the environment variable that holds the token, never the token itself').optional(),
  })
  .superRefine((server, context) => {
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

export type McpServerConfig = z.infer<typeof serverSchema>;

export const mcpConfigSchema = z.strictObject({
  /** The pin lock, relative to svc.yml; meant to be committed. */
  lock: z.string().min(1).max(4096).default('svc.mcp.lock'),
  /** A tool seen for the first time: `pin` signs its definition into the lock, `require` leaves it unpinned until `svc mcp pins approve`. */
  firstUse: z.enum(['pin', 'require']).default('pin'),
  /** What a call of an unpinned tool gets: `deny`, or `step_up` (a reviewer approves that exact call). */
  unpinned: z.enum(['deny', 'step_up']).default('deny'),
  /** How long an upstream may take to answer one request before the agent gets an error. */
  requestTimeoutSeconds: z.number().int().min(1).max(3600).default(60),
  /** Largest JSON-RPC message accepted from the agent (one line on stdin); larger ones are answered with an error. */
  maxMessageBytes: z.number().int().min(1024).max(64 * 1024 * 1024).default(4 * 1024 * 1024),
  // Names are checked here rather than by the record's key schema, which zod reports only as "Invalid key in record".
  servers: z
    .record(z.string(), serverSchema)
    .superRefine((servers, context) => {
      for (const name of Object.keys(servers)) if (!MCP_SERVER_NAME.test(name)) context.addIssue({ code: 'custom', path: [name], message: SERVER_NAME_MESSAGE });
    })
    .default({}),
});

export type McpConfig = z.infer<typeof mcpConfigSchema>;

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
  return 'expected an http(s) URL';
}
