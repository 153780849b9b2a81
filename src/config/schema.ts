import * as z from 'zod';
import { TENANT_PATTERN } from '../actionpass/action.js';
import { durationSchema, policySchema } from '../policy/policy-schema.js';
import { protectedPathsSchema } from '../policy/protected-paths.js';
import { choice, namedRecord, nameField, optionalSection, pathField, section, wholeNumber } from './field-schemas.js';
import { mcpConfigSchema, mcpDefaults } from './mcp-schema.js';

/**
 * The `svc.yml` schema. Unknown keys are rejected so a typo never silently falls back to a
 * default. Paths are relative to the file itself. Credentials never appear here: a connector
 * names the environment variable that holds its credential.
 */
const ENV_VAR_NAME = /^[A-Z_][A-Z0-9_]{0,127}$/;
const CONNECTOR_NAME = /^[a-z][a-z0-9_-]{0,63}$/;
const TENANT_MESSAGE = 'expected org:<name> in lowercase letters, digits, ".", "_" or "-", for example org:acme';
const CREDENTIAL_ENV_MESSAGE = 'name the environment variable that holds the credential (for example SLACK_TOKEN), never the credential itself';

/**
 * The sections most svc.yml files leave out, each built on first use (optionalSection): absent,
 * a section takes its defaults without its schema being built. Exported for the test that holds
 * each section's defaults to what its schema makes of `{}`.
 */
export const optionalSections = {
  proxy: {
    build: () =>
      section('{ host: 127.0.0.1, port: 7331 }', {
        // Checked for loopback when the proxy starts, where the error can say what to do instead.
        host: z.string({ error: 'expected a loopback address, for example 127.0.0.1' }).min(1, 'expected a loopback address, for example 127.0.0.1').default('127.0.0.1'),
        port: wholeNumber('', 0, 65_535, 7331).default(7331),
      }),
    defaults: () => ({ host: '127.0.0.1', port: 7331 }),
  },
  ledger: {
    build: () =>
      section('{ path: .svc/ledger.jsonl }', {
        path: pathField('.svc/ledger.jsonl').default('.svc/ledger.jsonl'),
        checkpoint: section('{ everyRecords: 1000, everyMs: 1000 }', {
          everyRecords: wholeNumber('records', 1, 1_000_000, 1000).default(1000),
          everyMs: wholeNumber('milliseconds', 10, 3_600_000, 1000).default(1000),
        }).prefault({}),
      }),
    defaults: () => ({ path: '.svc/ledger.jsonl', checkpoint: { everyRecords: 1000, everyMs: 1000 } }),
  },
  keys: {
    build: () =>
      section('{ dir: .svc/keys, trust: .svc/trust.json }', {
        /** Private signing keys (mode 0600); the ledger key lives in <ledger dir>/keys as well. */
        dir: pathField('.svc/keys').default('.svc/keys'),
        /** Public keys, their roles and revocations. */
        trust: pathField('.svc/trust.json').default('.svc/trust.json'),
      }),
    defaults: () => ({ dir: '.svc/keys', trust: '.svc/trust.json' }),
  },
  actionpass: {
    build: () =>
      section('{ issuer: svc.local, audience: svc.adapters, ttlSeconds: 300 }', {
        issuer: nameField('svc.local').default('svc.local'),
        audience: nameField('svc.adapters').default('svc.adapters'),
        ttlSeconds: wholeNumber('seconds', 1, 3600, 300).default(300),
      }),
    defaults: () => ({ issuer: 'svc.local', audience: 'svc.adapters', ttlSeconds: 300 }),
  },
  approvals: {
    build: () =>
      section('{ ttlSeconds: 86400 }', {
        /** How long a pending approval can still be approved. */
        ttlSeconds: wholeNumber('seconds', 60, 7 * 86_400, 86_400).default(86_400),
      }),
    defaults: () => ({ ttlSeconds: 86_400 }),
  },
  adapters: {
    build: () =>
      section('{ outbox: .svc/outbox, sandbox: .svc/sandbox }', {
        /** Where the demo chat and email handlers deliver messages. */
        outbox: pathField('.svc/outbox').default('.svc/outbox'),
        /** The only directory fs.file.write may write in. */
        sandbox: pathField('.svc/sandbox').default('.svc/sandbox'),
        connectors: namedRecord(
          CONNECTOR_NAME,
          'a connector name is lowercase letters, digits, "_" or "-", starting with a letter (at most 64)',
          section('{ credentialEnv: SLACK_TOKEN }', {
            credentialEnv: z.string({ error: CREDENTIAL_ENV_MESSAGE }).regex(ENV_VAR_NAME, CREDENTIAL_ENV_MESSAGE),
          }),
          '{ slack: { credentialEnv: SLACK_TOKEN } }',
        ).default({}),
      }),
    defaults: () => ({ outbox: '.svc/outbox', sandbox: '.svc/sandbox', connectors: {} }),
  },
  /** `svc mcp serve`: upstream MCP servers, the pin lock and what an unpinned tool gets (src/config/mcp-schema.ts). */
  mcp: { build: mcpConfigSchema, defaults: mcpDefaults },
};

export const svcConfigSchema = section('tenant: org:acme (see svc.yml.example)', {
  tenant: z.string({ error: (issue) => (issue.input === undefined ? 'missing: write tenant: org:<name>, for example tenant: org:acme' : TENANT_MESSAGE) }).regex(TENANT_PATTERN, TENANT_MESSAGE),
  proxy: optionalSection(optionalSections.proxy),
  ledger: optionalSection(optionalSections.ledger),
  keys: optionalSection(optionalSections.keys),
  actionpass: optionalSection(optionalSections.actionpass),
  approvals: optionalSection(optionalSections.approvals),
  adapters: optionalSection(optionalSections.adapters),
  policy: policySchema.prefault({}),
  /** Paths no agent may read or change, whatever the rules say (src/policy/protected-paths.ts). */
  protectedPaths: protectedPathsSchema.prefault({}),
  hooks: section('{ stepUp: deny }', {
      /**
       * How a step_up reaches a coding agent: `deny` names the approval to grant and the identical
       * command then passes once (bound to the exact payload); `ask` hands the question to the
       * runtime's own prompt, which binds nothing and leaves no artifact.
       */
      stepUp: choice(['deny', 'ask']).default('deny'),
      /**
       * Opt-in: a hook that had to decide locally starts `svc proxy` for this workspace in the
       * background, so the calls after it are forwarded (much faster than a process that loads
       * the engine). The proxy exits after `idleExit` without a request (src/hooks/resident-proxy.ts).
       */
      residentProxy: section('{ idleExit: 30m }', { idleExit: durationSchema('idleExit').default('30m') }).optional(),
  }).prefault({}),
  mcp: optionalSection(optionalSections.mcp),
});

export type SvcConfig = z.infer<typeof svcConfigSchema>;
