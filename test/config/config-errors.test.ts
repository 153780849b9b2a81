/**
 * Every refused svc.yml, outside the policy section (test/policy/policy-schema.test.ts), loaded
 * from a real file with the real loader: the exact message (file:line:col, the key, what to write)
 * and the stable code. Then the same through `svc proxy` as a child process: exit status 2 and
 * one line on stderr, no stack trace (docs/configuration.md).
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { SvcError } from '../../src/errors.js';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/ledger.js';

interface Case {
  name: string;
  yaml: string;
  /** The message with the file written as `svc.yml`, one line per problem. */
  message: string[];
  code?: string;
}

const T = 'tenant: org:acme\n';

const CASES: Case[] = [
  // tenant
  { name: 'tenant missing: the line of the map that should hold it', yaml: 'proxy:\n  port: 7331\n', message: ['svc.yml:1:1: tenant: missing: write tenant: org:<name>, for example tenant: org:acme'] },
  { name: 'an empty file', yaml: '', message: ['svc.yml:1:1: tenant: missing: write tenant: org:<name>, for example tenant: org:acme'] },
  { name: 'tenant without org:', yaml: 'tenant: Acme\n', message: ['svc.yml:1:9: tenant: expected org:<name> in lowercase letters, digits, ".", "_" or "-", for example org:acme'] },
  { name: 'tenant not text', yaml: 'tenant: 42\n', message: ['svc.yml:1:9: tenant: expected org:<name> in lowercase letters, digits, ".", "_" or "-", for example org:acme'] },
  { name: 'a misspelled tenant', yaml: 'tennant: org:acme\n', message: ['svc.yml:1:1: tenant: missing: write tenant: org:<name>, for example tenant: org:acme', 'svc.yml:1:1: tennant: unknown key tennant; see docs/configuration.md for the keys svc.yml accepts'] },
  { name: 'a list instead of a map', yaml: '- tenant: org:acme\n', message: ['svc.yml:1:1: (top level): expected a map of keys, for example tenant: org:acme (see svc.yml.example)'] },

  // proxy
  { name: 'proxy not a map', yaml: `${T}proxy: 7331\n`, message: ['svc.yml:2:8: proxy: expected a map of keys, for example { host: 127.0.0.1, port: 7331 }'] },
  { name: 'proxy.port in quotes', yaml: `${T}proxy:\n  port: "8080"\n`, message: ['svc.yml:3:9: proxy.port: expected a whole number from 0 to 65535, for example 7331; write the number without quotes'] },
  { name: 'proxy.port out of range', yaml: `${T}proxy:\n  port: 70000\n`, message: ['svc.yml:3:9: proxy.port: expected a whole number from 0 to 65535, for example 7331'] },
  { name: 'proxy.host empty', yaml: `${T}proxy:\n  host: ""\n`, message: ['svc.yml:3:9: proxy.host: expected a loopback address, for example 127.0.0.1'] },
  { name: 'an unknown key in proxy', yaml: `${T}proxy:\n  bind: 0.0.0.0\n`, message: ['svc.yml:3:3: proxy.bind: unknown key bind; see docs/configuration.md for the keys svc.yml accepts'] },

  // ledger
  { name: 'ledger.path not text', yaml: `${T}ledger:\n  path: [a, b]\n`, message: ['svc.yml:3:9: ledger.path: expected a path (relative to svc.yml), for example .svc/ledger.jsonl'] },
  { name: 'ledger.checkpoint.everyMs too small', yaml: `${T}ledger:\n  checkpoint:\n    everyMs: 5\n`, message: ['svc.yml:4:14: ledger.checkpoint.everyMs: expected a whole number of milliseconds from 10 to 3600000, for example 1000'] },
  { name: 'ledger.checkpoint.everyRecords a fraction', yaml: `${T}ledger:\n  checkpoint: { everyRecords: 1.5 }\n`, message: ['svc.yml:3:31: ledger.checkpoint.everyRecords: expected a whole number of records from 1 to 1000000, for example 1000'] },

  // keys
  { name: 'keys.dir empty', yaml: `${T}keys:\n  dir: ""\n`, message: ['svc.yml:3:8: keys.dir: expected a path (relative to svc.yml), for example .svc/keys'] },
  { name: 'an unknown key in keys', yaml: `${T}keys:\n  private: .svc/private\n`, message: ['svc.yml:3:3: keys.private: unknown key private; see docs/configuration.md for the keys svc.yml accepts'] },

  // actionpass, approvals
  { name: 'actionpass.ttlSeconds 0', yaml: `${T}actionpass:\n  ttlSeconds: 0\n`, message: ['svc.yml:3:15: actionpass.ttlSeconds: expected a whole number of seconds from 1 to 3600, for example 300'] },
  { name: 'actionpass.audience empty', yaml: `${T}actionpass:\n  audience: ""\n`, message: ['svc.yml:3:13: actionpass.audience: expected a name of 1 to 200 characters, for example svc.adapters'] },
  { name: 'approvals.ttlSeconds below a minute', yaml: `${T}approvals:\n  ttlSeconds: 30\n`, message: ['svc.yml:3:15: approvals.ttlSeconds: expected a whole number of seconds from 60 to 604800, for example 86400'] },

  // adapters
  { name: 'adapters.outbox left empty', yaml: `${T}adapters:\n  outbox:\n`, message: ['svc.yml:3:10: adapters.outbox: expected a path (relative to svc.yml), for example .svc/outbox'] },
  {
    name: 'a credential written into credentialEnv',
    yaml: `${T}adapters:\n  connectors:\n    slack:\n      credentialEnv: xoxb-1234-5678-abcdef\n`,
    message: ['svc.yml:5:22: adapters.connectors.slack.credentialEnv: name the environment variable that holds the credential (for example SLACK_TOKEN), never the credential itself'],
  },
  { name: 'a connector without credentialEnv: the line of its map', yaml: `${T}adapters:\n  connectors:\n    slack: {}\n`, message: ['svc.yml:4:12: adapters.connectors.slack.credentialEnv: name the environment variable that holds the credential (for example SLACK_TOKEN), never the credential itself'] },
  { name: 'a connector name in capitals, pointed at the name', yaml: `${T}adapters:\n  connectors:\n    Slack:\n      credentialEnv: SLACK_TOKEN\n`, message: ['svc.yml:4:5: adapters.connectors.Slack: a connector name is lowercase letters, digits, "_" or "-", starting with a letter (at most 64)'] },
  { name: 'connectors as a list', yaml: `${T}adapters:\n  connectors: [slack]\n`, message: ['svc.yml:3:15: adapters.connectors: expected a map from names to settings, for example { slack: { credentialEnv: SLACK_TOKEN } }'] },

  // hooks
  { name: 'hooks.stepUp not deny or ask', yaml: `${T}hooks:\n  stepUp: prompt\n`, message: ['svc.yml:3:11: hooks.stepUp: expected deny or ask'] },
  { name: 'hooks.residentProxy true', yaml: `${T}hooks:\n  residentProxy: true\n`, message: ['svc.yml:3:18: hooks.residentProxy: expected a map of keys, for example { idleExit: 30m }'] },
  { name: 'hooks.residentProxy.idleExit in weeks', yaml: `${T}hooks:\n  residentProxy: { idleExit: 1w }\n`, message: ['svc.yml:3:30: hooks.residentProxy.idleExit: idleExit is a duration such as 30s, 15m, 1h or 7d'] },

  // mcp
  { name: 'mcp.firstUse not pin or require', yaml: `${T}mcp:\n  firstUse: always\n`, message: ['svc.yml:3:13: mcp.firstUse: expected pin or require'] },
  { name: 'mcp.requestTimeoutSeconds 0', yaml: `${T}mcp:\n  requestTimeoutSeconds: 0\n`, message: ['svc.yml:3:26: mcp.requestTimeoutSeconds: expected a whole number of seconds from 1 to 3600, for example 60'] },
  { name: 'an mcp server name in capitals', yaml: `${T}mcp:\n  servers:\n    GitHub: { command: github-mcp-server }\n`, message: ['svc.yml:4:5: mcp.servers.GitHub: a server name is lowercase letters, digits, "_" or "-", starting with a letter (at most 64)'] },
  { name: 'an mcp server with neither command nor url', yaml: `${T}mcp:\n  servers:\n    github:\n      args: [serve]\n`, message: ['svc.yml:5:7: mcp.servers.github: a server has either command (stdio) or url (streamable HTTP), not both and not neither'] },
  { name: 'a token written into an mcp server env', yaml: `${T}mcp:\n  servers:\n    github: { command: gh-mcp, env: [GITHUB_TOKEN=ghp_abcdef] }\n`, message: ['svc.yml:4:38: mcp.servers.github.env.0: name an environment variable to pass through (for example GITHUB_TOKEN), never its value'] },
  { name: 'an mcp server url with another scheme', yaml: `${T}mcp:\n  servers:\n    remote: { url: "ftp://mcp.example.com" }\n`, message: ['svc.yml:4:20: mcp.servers.remote.url: expected an http(s) URL, for example https://mcp.example.com/mcp'] },

  // protectedPaths and policy: fields without their own message still say what to write
  { name: 'protectedPaths with wrong kinds', yaml: `${T}protectedPaths:\n  defaults: "no"\n  read: .env\n  dynamic: allow\n`, message: ['svc.yml:3:13: protectedPaths.defaults: expected true or false', 'svc.yml:4:9: protectedPaths.read: expected a list ([a, b] or lines starting with "- ")', 'svc.yml:5:12: protectedPaths.dynamic: expected step_up or deny'] },
  { name: 'policy as a list', yaml: `${T}policy: []\n`, message: ['svc.yml:2:9: policy: expected a map of keys (key: value)'] },

  // YAML itself
  { name: 'a duplicate key', yaml: `${T}ledger:\n  path: a.jsonl\nledger:\n  path: b.jsonl\n`, message: ['svc.yml:4:1: duplicate key ledger: a key appears once in each map; keep one and delete the other'] },
  { name: 'a duplicate nested key', yaml: `${T}proxy:\n  port: 1\n  "port": 2\n`, message: ['svc.yml:4:3: duplicate key "port": a key appears once in each map; keep one and delete the other'] },
  {
    name: 'an unclosed flow sequence',
    yaml: `${T}protectedPaths:\n  read: [.env\n`,
    message: ['svc.yml:4:1: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]; check the indentation and quoting on this line or the one before'],
  },
  { name: 'a tab for indentation', yaml: `${T}proxy:\n\tport: 1\n`, message: ['svc.yml:3:1: not valid YAML: Tabs are not allowed as indentation; check the indentation and quoting on this line or the one before'] },
];

describe('svc.yml errors outside the policy section', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir('svc-config-errors-');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(CASES)('$name', async ({ name, yaml, message, code }) => {
    const file = join(dir, `${name.replace(/[^a-z0-9]+/gi, '-')}.yml`);
    await writeFile(file, yaml);
    const error = await loadConfig(file).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(SvcError);
    const refused = error as SvcError;
    expect(refused.code).toBe(code ?? 'config_invalid');
    expect(refused.message.split(file).join('svc.yml').split('\n')).toEqual(message);
    // What was refused is never echoed: it may be a credential pasted into the wrong key.
    for (const secret of ['xoxb-1234', 'ghp_abcdef']) expect(refused.message).not.toContain(secret);
  });

  it('a missing file and an unreadable one have their own codes', async () => {
    const missing = join(dir, 'absent.yml');
    await expect(loadConfig(missing)).rejects.toMatchObject({ code: 'config_missing', message: `${missing} does not exist; copy svc.yml.example to svc.yml or pass --config <file>` });
    const directory = join(dir, 'a-directory.yml');
    await mkdir(directory);
    await expect(loadConfig(directory)).rejects.toMatchObject({ code: 'config_unreadable', message: `${directory} cannot be read: EISDIR: illegal operation on a directory, read` });
  });
});

describe('svc proxy --config with a refused svc.yml', () => {
  it('exits with status 2 and prints the message on one line, without a stack trace', async () => {
    const dir = await tempDir('svc-config-cli-');
    try {
      const file = join(dir, 'bad.yml');
      await writeFile(file, `${T}proxy:\n  port: "8080"\n`);
      const run = await runCli(['proxy', '--config', file], { cwd: dir });
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(`svc: ${file}:3:9: proxy.port: expected a whole number from 0 to 65535, for example 7331; write the number without quotes [config_invalid]\n`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
