/**
 * Process-level helpers for the MCP suites: a workspace with its own svc.yml, the built
 * `svc mcp serve` as a child process driven by the official SDK client (or by raw lines on its
 * stdin), and readers of the ledger the wrapper wrote.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, type CliResult } from '../support/cli.js';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const EVERYTHING = join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
export const INSPECTOR_CLI = join(REPO, 'node_modules/@modelcontextprotocol/inspector-cli/build/index.js');
export const WEATHER = fileURLToPath(new URL('./fixtures/weather-server.mjs', import.meta.url));

export interface McpWorkspace {
  dir: string;
  config: string;
  ledger: string;
  lock: string;
}

/** A temp workspace whose svc.yml is `yaml` (tenant org:acme is added). */
export async function mcpWorkspace(yaml: string): Promise<McpWorkspace> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-mcp-'));
  const config = join(dir, 'svc.yml');
  await writeFile(config, `tenant: org:acme\n${yaml}`);
  return { dir, config, ledger: join(dir, '.svc/ledger.jsonl'), lock: join(dir, 'svc.mcp.lock') };
}

export async function removeWorkspace(ws: McpWorkspace): Promise<void> {
  await rm(ws.dir, { recursive: true, force: true });
}

export interface Wrapped {
  client: Client;
  stderr: () => string;
  close(): Promise<void>;
}

/** `svc mcp serve <args>` as a child process, connected with the SDK's stdio client. */
export async function connectWrapper(ws: McpWorkspace, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Wrapped> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', 'serve', '--config', ws.config, ...args],
    env: { ...(process.env as Record<string, string>), ...(env as Record<string, string>) },
    stderr: 'pipe',
    cwd: ws.dir,
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'svc-test-client', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** A raw line-level session: write JSON-RPC lines, read answers by id. */
export interface RawSession {
  child: ChildProcessWithoutNullStreams;
  send(line: string): void;
  request(method: string, params?: unknown): Promise<Record<string, unknown>>;
  next(id: number | string | null): Promise<Record<string, unknown>>;
  stderr: () => string;
  close(): Promise<number | null>;
}

export function rawWrapper(ws: McpWorkspace, args: string[], env: NodeJS.ProcessEnv = {}): RawSession {
  const child = spawn(process.execPath, [CLI, 'mcp', 'serve', '--config', ws.config, ...args], { cwd: ws.dir, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const answers: Record<string, unknown>[] = [];
  const waiters: { id: number | string | null; resolve: (message: Record<string, unknown>) => void }[] = [];
  let buffer = '';
  let stderr = '';
  let nextId = 1000;
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let at = buffer.indexOf('\n'); at !== -1; at = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, at)) as Record<string, unknown>;
      buffer = buffer.slice(at + 1);
      const waiter = waiters.findIndex((candidate) => candidate.id === message.id);
      if (waiter !== -1) waiters.splice(waiter, 1)[0]?.resolve(message);
      else answers.push(message);
    }
  });
  const next = (id: number | string | null) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const found = answers.findIndex((message) => message.id === id);
      if (found !== -1) resolve(answers.splice(found, 1)[0] as Record<string, unknown>);
      else waiters.push({ id, resolve });
    });
  const send = (line: string) => child.stdin.write(`${line}\n`);
  return {
    child,
    send,
    next,
    request(method, params) {
      const id = nextId;
      nextId += 1;
      send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined && { params }) }));
      return next(id);
    },
    stderr: () => stderr,
    close: () =>
      new Promise((resolve) => {
        child.on('close', (code) => resolve(code));
        child.stdin.end();
      }),
  };
}

export const INITIALIZE = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-test', version: '1' } };

export async function ledgerRecords(ws: McpWorkspace): Promise<{ seq: number; type: string; data: Record<string, unknown> }[]> {
  const text = await readFile(ws.ledger, 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { seq: number; type: string; data: Record<string, unknown> });
}

/** The built `svc` with `args`, in its own environment (variables an upstream needs pass through svc). */
export function runSvc(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `svc verify-export <ledger> --json`: the ledger the wrapper wrote verifies offline. */
export async function verifyLedger(ws: McpWorkspace): Promise<{ code: number | null; report: Record<string, unknown> }> {
  const result = await runSvc(['verify-export', ws.ledger, '--json']);
  return { code: result.code, report: JSON.parse(result.stdout) as Record<string, unknown> };
}

export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((item) => item.text ?? '').join('\n');
}
