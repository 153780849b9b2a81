import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import canonicalize from 'canonicalize';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../support/cli.js';
import { connectWrapper, EVERYTHING, FILESYSTEM, INSPECTOR_CLI, ledgerRecords, mcpWorkspace, removeWorkspace, textOf, verifyLedger, type McpWorkspace, type Wrapped } from './support.js';

/**
 * `svc mcp serve` in front of the reference MCP servers from npm (everything, filesystem; stdio
 * and streamable HTTP), driven by the official SDK client and by the MCP Inspector's CLI, a client
 * nobody here wrote. The ledger the wrapper wrote verifies at the end.
 */
let ws: McpWorkspace;
let http: ChildProcess | undefined;
let httpPort = 0;

function sha256Jcs(value: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalize(value) as string).digest('hex')}`;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The everything server's streamable-HTTP mode on a free loopback port, once it says it listens. */
async function startHttpEverything(): Promise<void> {
  httpPort = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], { env: { ...process.env, PORT: String(httpPort) }, stdio: ['ignore', 'ignore', 'pipe'] });
  http = child;
  await new Promise<void>((resolve, reject) => {
    let said = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      said += chunk.toString('utf8');
      if (said.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the everything server exited (${code}): ${said}`)));
  });
}

beforeAll(async () => {
  await startHttpEverything();
  ws = await mcpWorkspace('');
  await mkdir(join(ws.dir, 'data/notes'), { recursive: true });
  await writeFile(join(ws.dir, 'data/readme.txt'), 'hello from the workspace\n');
  await writeFile(
    ws.config,
    `tenant: org:acme
mcp:
  servers:
    everything:
      command: ${JSON.stringify(process.execPath)}
      args: [${JSON.stringify(EVERYTHING)}, stdio]
    files:
      command: ${JSON.stringify(process.execPath)}
      args: [${JSON.stringify(FILESYSTEM)}, ${JSON.stringify(join(ws.dir, 'data'))}]
    remote:
      url: http://127.0.0.1:${httpPort}/mcp
policy:
  rules:
    - id: everything
      when: { tool: "mcp.everything.*" }
      decision: allow
    - id: no-env
      description: the environment of the server may hold secrets
      when: { tool: mcp.everything.get-env }
      decision: deny
      reasons: [env_read_denied]
    - id: files-read
      when: { tool: [mcp.files.read_text_file, mcp.files.list_directory, mcp.files.list_allowed_directories] }
      decision: allow
    - id: files-notes
      description: agents may write notes, nothing else
      when:
        tool: mcp.files.write_file
        payload:
          path: { glob: "*/data/notes/*" }
      decision: allow
    - id: remote
      when: { tool: "mcp.remote.*" }
      decision: allow
`,
  );
});

afterAll(async () => {
  http?.kill('SIGTERM');
  if (ws) await removeWorkspace(ws);
});

describe('svc mcp serve in front of @modelcontextprotocol/server-everything (SDK client)', () => {
  let wrapped: Wrapped;
  let direct: Client;

  beforeAll(async () => {
    wrapped = await connectWrapper(ws, ['--server', 'everything']);
    direct = new Client({ name: 'svc-test-direct', version: '1.0.0' });
    await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
  });
  afterAll(async () => {
    await wrapped?.close();
    await direct?.close();
  });

  it('mirrors the upstream: server info, capabilities and instructions are those of the real server', () => {
    expect(wrapped.client.getServerVersion()).toEqual(direct.getServerVersion());
    expect(wrapped.client.getServerCapabilities()).toEqual(direct.getServerCapabilities());
    expect(wrapped.client.getInstructions()).toEqual(direct.getInstructions());
  });

  it('relays what is not a tool call unchanged: resources, prompts', async () => {
    expect(await wrapped.client.listResources()).toEqual(await direct.listResources());
    expect(await wrapped.client.listPrompts()).toEqual(await direct.listPrompts());
    const uri = (await direct.listResources()).resources[0]?.uri as string;
    expect(await wrapped.client.readResource({ uri })).toEqual(await direct.readResource({ uri }));
  });

  it('lists the same tools, pinned on first use', async () => {
    const [through, straight] = await Promise.all([wrapped.client.listTools(), direct.listTools()]);
    expect(through.tools).toEqual(straight.tools);
  });

  it('lets an allowed call through, with progress notifications relayed', async () => {
    expect(textOf(await wrapped.client.callTool({ name: 'echo', arguments: { message: 'hello' } }))).toBe('Echo: hello');
    const progress: number[] = [];
    const result = await wrapped.client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, undefined, { onprogress: (event) => progress.push(event.progress) });
    expect(result.isError).toBeFalsy();
    expect(progress.length).toBeGreaterThan(0);
  });

  it('returns a policy denial as a tool error with the reason code and explanation', async () => {
    const denied = await wrapped.client.callTool({ name: 'get-env', arguments: {} });
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toContain('env_read_denied');
    expect(textOf(denied)).toMatch(/^svc denied the call of everything\/get-env: /);
  });
});

describe('svc mcp serve in front of @modelcontextprotocol/server-filesystem (SDK client)', () => {
  it('allows reads and note writes, denies other writes before they reach the server, and records the pair from the arguments sent', async () => {
    const wrapped = await connectWrapper(ws, ['--server', 'files']);
    const notePath = join(ws.dir, 'data/notes/today.md');
    const elsewhere = join(ws.dir, 'data/evil.sh');
    try {
      const read = await wrapped.client.callTool({ name: 'read_text_file', arguments: { path: join(ws.dir, 'data/readme.txt') } });
      expect(textOf(read)).toContain('hello from the workspace');
      const written = await wrapped.client.callTool({ name: 'write_file', arguments: { path: notePath, content: '# notes\n' } });
      expect(written.isError).toBeFalsy();
      const denied = await wrapped.client.callTool({ name: 'write_file', arguments: { path: elsewhere, content: 'rm -rf ~\n' } });
      expect(denied.isError).toBe(true);
      expect(textOf(denied)).toContain('default_deny');
    } finally {
      await wrapped.close();
    }
    expect(await readFile(notePath, 'utf8')).toBe('# notes\n');
    await expect(stat(elsewhere)).rejects.toThrow();
    const records = await ledgerRecords(ws);
    const received = records.find((record) => record.type === 'action.received' && (record.data.action as { capability: { tool: string; payload: { path?: string } } }).capability.payload.path === notePath);
    const actionId = received?.data.actionId;
    const completed = records.find((record) => record.type === 'execution.completed' && record.data.actionId === actionId);
    const sent = sha256Jcs({ path: notePath, content: '# notes\n' });
    expect(completed?.data).toMatchObject({ outcome: 'succeeded', approvedPayloadHash: sent, executedPayloadHash: sent });
    expect((received?.data.action as { capability: unknown }).capability).toMatchObject({ tool: 'mcp.files.write_file', resource: 'mcp:files' });
  });
});

describe('svc mcp serve in front of a streamable-HTTP upstream', () => {
  it('lists and calls through the HTTP transport', async () => {
    const wrapped = await connectWrapper(ws, ['--server', 'remote']);
    try {
      expect((await wrapped.client.listTools()).tools.map((tool) => tool.name)).toContain('echo');
      expect(textOf(await wrapped.client.callTool({ name: 'echo', arguments: { message: 'over http' } }))).toBe('Echo: over http');
    } finally {
      await wrapped.close();
    }
  });
});

describe('svc mcp serve driven by the MCP Inspector CLI (@modelcontextprotocol/inspector-cli)', () => {
  function inspector(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      // Its build looks for ../package.json relative to the working directory, as installed from npm.
      const child = spawn(process.execPath, [INSPECTOR_CLI, process.execPath, ...args, '--', CLI, 'mcp', 'serve', '--config', ws.config, '--server', 'everything'], { cwd: dirname(INSPECTOR_CLI), stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  it('lists tools and calls an allowed one', async () => {
    const listed = await inspector(['--method', 'tools/list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name)).toContain('echo');
    const called = await inspector(['--method', 'tools/call', '--tool-name', 'echo', '--tool-arg', 'message=from the inspector']);
    expect(called.code, called.stderr).toBe(0);
    expect(textOf(JSON.parse(called.stdout))).toBe('Echo: from the inspector');
  });

  it('sees a denial as a tool error carrying the reason code', async () => {
    const denied = await inspector(['--method', 'tools/call', '--tool-name', 'get-env']);
    const result = JSON.parse(denied.stdout) as { isError?: boolean };
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('env_read_denied');
  });
});

describe('the ledger svc mcp serve wrote', () => {
  it('verifies with svc verify-export', async () => {
    const { code, report } = await verifyLedger(ws);
    expect(report.valid, JSON.stringify(report)).toBe(true);
    expect(code).toBe(0);
  });
});
