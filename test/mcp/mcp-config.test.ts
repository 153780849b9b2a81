import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.js';
import { sniffRequestId } from '../../src/mcp/jsonrpc.js';
import { callerOf, mcpToolName } from '../../src/mcp/mcp-action.js';
import { StdioLineTransport } from '../../src/mcp/stdio-line-transport.js';

/** The svc.yml mcp section, the action naming and the agent-side framing, without processes. */

describe('svc.yml mcp section', () => {
  it('given nothing, defaults to pin on first use, deny unpinned, svc.mcp.lock', () => {
    const config = parseConfig('tenant: org:acme\n', 'svc.yml');
    expect(config.mcp).toEqual({ lock: 'svc.mcp.lock', firstUse: 'pin', unpinned: 'deny', requestTimeoutSeconds: 60, maxMessageBytes: 4 * 1024 * 1024, servers: {} });
  });

  it('accepts a command server with pass-through env names and a URL server with a token variable', () => {
    const config = parseConfig(
      'tenant: org:acme\nmcp:\n  servers:\n    files: { command: npx, args: [mcp-server-filesystem, .], env: [GITHUB_TOKEN] }\n    remote: { url: "https://mcp.example.com/mcp", bearerTokenEnv: REMOTE_TOKEN }\n',
      'svc.yml',
    );
    expect(Object.keys(config.mcp.servers)).toEqual(['files', 'remote']);
  });

  it.each([
    ['both command and url', '    x: { command: a, url: "https://a.example/mcp" }', 'either command'],
    ['neither', '    x: { args: [a] }', 'either command'],
    ['a plain-http remote', '    x: { url: "http://mcp.example.com/mcp" }', 'loopback'],
    ['credentials in the URL', '    x: { url: "https://user:secret@mcp.example.com/mcp" }', 'credentials'],
    ['an env value instead of a name', '    x: { command: a, env: ["TOKEN=abc"] }', 'never its value'],
    ['an unknown key', '    x: { command: a, headers: {} }', 'unknown key'],
    ['a bad server name', '    X_Y: { command: a }', 'server name'],
  ])('refuses %s with a message that says what to write', (_case, line, message) => {
    expect(() => parseConfig(`tenant: org:acme\nmcp:\n  servers:\n${line}\n`, 'svc.yml')).toThrow(message);
  });
});

describe('MCP actions', () => {
  it('name a call mcp.<server>.<tool>, with the same mapping as the runtime hooks for odd characters', () => {
    expect(mcpToolName('files', 'write_file')).toBe('mcp.files.write_file');
    expect(mcpToolName('gh', 'repos/create.issue')).toBe('mcp.gh.repos_create_issue');
  });

  it('take the agent from the client name unless told', () => {
    expect(callerOf('Claude Code', 'abc', 'files')).toEqual({ agentId: 'agent:Claude-Code', runtime: 'Claude-Code', taskId: 'mcp:files:abc' });
    expect(callerOf(undefined, 'abc', 'files', 'agent:ci')).toMatchObject({ agentId: 'agent:ci', runtime: 'mcp-client' });
  });
});

describe('the agent-side stdio framing', () => {
  it('finds the id of a message it cannot parse, or says null', () => {
    expect(sniffRequestId('{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"x":"')).toBe(42);
    expect(sniffRequestId('{"id": "req-\\"7\\"", "method"')).toBe('req-"7"');
    expect(sniffRequestId('{"method":"x","params":{"a":1')).toBeNull();
  });

  it('answers every bad line with an error and still delivers the good ones, split across chunks', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const transport = new StdioLineTransport(input, output, 64);
    const delivered: unknown[] = [];
    transport.onmessage = (message) => delivered.push(message);
    await transport.start();
    const answers: Record<string, unknown>[] = [];
    output.on('data', (chunk: Buffer) => answers.push(...chunk.toString('utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)));
    input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"me');
    input.write('thod":"ping"}\nnot json\n');
    input.write(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"pad":"${'x'.repeat(100)}`);
    input.write('"}}\n{"jsonrpc":"2.0","id":4,"method":"ping"}\r\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(delivered).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      { jsonrpc: '2.0', id: 4, method: 'ping' },
    ]);
    expect(answers.map((answer) => [answer.id, (answer.error as { code: number }).code])).toEqual([
      [null, -32700],
      [3, -32600],
    ]);
    await transport.close();
  });
});
