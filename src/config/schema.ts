import * as z from 'zod';
import { TENANT_PATTERN } from '../actionpass/action.js';
import { durationSchema, policySchema } from '../policy/policy-schema.js';
import { protectedPathsSchema } from '../policy/protected-paths.js';
import { mcpConfigSchema } from './mcp-schema.js';

/**
 * The `svc.yml` schema. Unknown keys are rejected so a typo never silently falls back to a
 * default. Paths are relative to the file itself. Credentials never appear here: a connector
 * names the environment variable that holds its credential.
 */
const relativePath = z.string().min(1).max(4096);
const ENV_VAR_NAME = /^[A-Z_][A-Z0-9_]{0,127}$/;

export const svcConfigSchema = z.strictObject({
  tenant: z.string().regex(TENANT_PATTERN, 'expected org:<name> in lowercase letters, digits, ".", "_" or "-"'),
  proxy: z
    .strictObject({
      // Checked for loopback when the proxy starts, where the error can say what to do instead.
      host: z.string().min(1).default('127.0.0.1'),
      port: z.number().int().min(0).max(65_535).default(7331),
    })
    .prefault({}),
  ledger: z
    .strictObject({
      path: relativePath.default('.svc/ledger.jsonl'),
      checkpoint: z
        .strictObject({
          everyRecords: z.number().int().min(1).max(1_000_000).default(1000),
          everyMs: z.number().int().min(10).max(3_600_000).default(1000),
        })
        .prefault({}),
    })
    .prefault({}),
  keys: z
    .strictObject({
      /** Private signing keys (mode 0600); the ledger key lives in <ledger dir>/keys as well. */
      dir: relativePath.default('.svc/keys'),
      /** Public keys, their roles and revocations. */
      trust: relativePath.default('.svc/trust.json'),
    })
    .prefault({}),
  actionpass: z
    .strictObject({
      issuer: z.string().min(1).max(200).default('svc.local'),
      audience: z.string().min(1).max(200).default('svc.adapters'),
      ttlSeconds: z.number().int().min(1).max(3600).default(300),
    })
    .prefault({}),
  approvals: z
    .strictObject({
      /** How long a pending approval can still be approved. */
      ttlSeconds: z.number().int().min(60).max(7 * 86_400).default(86_400),
    })
    .prefault({}),
  adapters: z
    .strictObject({
      /** Where the demo chat and email handlers deliver messages. */
      outbox: relativePath.default('.svc/outbox'),
      /** The only directory fs.file.write may write in. */
      sandbox: relativePath.default('.svc/sandbox'),
      connectors: z
        .record(
          z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/, 'a connector name is lowercase letters, digits, "_" or "-"'),
          z.strictObject({
            credentialEnv: z.string().regex(ENV_VAR_NAME, 'name the environment variable that holds the credential (for example SLACK_TOKEN), never the credential itself'),
          }),
        )
        .default({}),
    })
    .prefault({}),
  policy: policySchema.prefault({}),
  /** Paths no agent may read or change, whatever the rules say (src/policy/protected-paths.ts). */
  protectedPaths: protectedPathsSchema.prefault({}),
  hooks: z
    .strictObject({
      /**
       * How a step_up reaches a coding agent: `deny` names the approval to grant and the identical
       * command then passes once (bound to the exact payload); `ask` hands the question to the
       * runtime's own prompt, which binds nothing and leaves no artifact.
       */
      stepUp: z.enum(['deny', 'ask']).default('deny'),
      /**
       * Opt-in: a hook that had to decide locally starts `svc proxy` for this workspace in the
       * background, so the calls after it are forwarded (much faster than a process that loads
       * the engine). The proxy exits after `idleExit` without a request (src/hooks/resident-proxy.ts).
       */
      residentProxy: z.strictObject({ idleExit: durationSchema('idleExit').default('30m') }).optional(),
    })
    .prefault({}),
  /** `svc mcp serve`: upstream MCP servers, the pin lock and what an unpinned tool gets (src/config/mcp-schema.ts). */
  mcp: mcpConfigSchema.prefault({}),
});

export type SvcConfig = z.infer<typeof svcConfigSchema>;
