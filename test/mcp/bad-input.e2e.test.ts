import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INITIALIZE, ledgerRecords, mcpWorkspace, rawWrapper, removeWorkspace, verifyLedger, WEATHER, type McpWorkspace, type RawSession } from './support.js';

/**
 * What the agent's side may throw at `svc mcp serve`, and an upstream that crashes or hangs: every
 * case is answered with a JSON-RPC error (or a tool error), the wrapper keeps serving, and the
 * ledger it wrote verifies at the end. Raw lines on the built wrapper's stdin, a real SDK server
 * (test/mcp/fixtures/weather-server.mjs) behind it.
 */
const MAX_MESSAGE_BYTES = 4096;

describe('svc mcp serve given bad input and a failing upstream', () => {
  let ws: McpWorkspace;
  let session: RawSession;

  beforeAll(async () => {
    ws = await mcpWorkspace(`mcp:
  requestTimeoutSeconds: 3
  maxMessageBytes: ${MAX_MESSAGE_BYTES}
  servers:
    weather:
      command: ${JSON.stringify(process.execPath)}
      args: [${JSON.stringify(WEATHER)}]
policy:
  rules:
    - id: weather
      when: { tool: "mcp.weather.*" }
      decision: allow
`);
    session = rawWrapper(ws, []);
    const initialized = await session.request('initialize', INITIALIZE);
    expect(initialized.result).toMatchObject({ serverInfo: { name: 'weather-fixture' } });
    session.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  });

  afterAll(async () => {
    await session?.close();
    await removeWorkspace(ws);
  });

  it('answers a line that is not JSON with a parse error (-32700, id null)', async () => {
    session.send('{"jsonrpc": "2.0", "id": ');
    const answer = await session.next(null);
    expect(answer.error).toMatchObject({ code: -32700, data: { code: 'mcp_parse_error' } });
  });

  it('answers JSON that is not JSON-RPC with an invalid request (-32600) under its id', async () => {
    session.send(JSON.stringify({ jsonrpc: '1.0', id: 7, method: 42 }));
    expect((await session.next(7)).error).toMatchObject({ code: -32600, data: { code: 'mcp_invalid_message' } });
    session.send('[1, 2, 3]');
    expect((await session.next(null)).error).toMatchObject({ code: -32600 });
  });

  it('relays an unknown method to the upstream and returns its method-not-found', async () => {
    const answer = await session.request('no/such/method', {});
    expect(answer.error).toMatchObject({ code: -32601 });
  });

  it('discards a message larger than mcp.maxMessageBytes, answers it under its id, and keeps serving', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 'big-1', method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(MAX_MESSAGE_BYTES * 3) } } });
    // Written in pieces, as a pipe delivers a large message.
    session.child.stdin.write(big.slice(0, 1000));
    session.child.stdin.write(big.slice(1000, 9000));
    session.send(big.slice(9000));
    expect((await session.next('big-1')).error).toMatchObject({ code: -32600, data: { code: 'mcp_message_too_large' } });
    const echoed = await session.request('tools/call', { name: 'echo', arguments: { text: 'after the big one' } });
    expect(echoed.result).toMatchObject({ content: [{ type: 'text', text: 'after the big one' }] });
  });

  it('refuses tools/call params that are not valid input (-32602) and records nothing for them', async () => {
    const before = (await ledgerRecords(ws)).length;
    expect((await session.request('tools/call', { arguments: {} })).error).toMatchObject({ code: -32602 });
    expect((await session.request('tools/call', { name: 'echo', arguments: [1, 2] })).error).toMatchObject({ code: -32602 });
    // Deeper than an action payload may nest (32 levels): svc cannot decide on it, so it is not sent.
    const deep = Array.from({ length: 40 }).reduce<Record<string, unknown>>((inner) => ({ inner }), {});
    expect((await session.request('tools/call', { name: 'echo', arguments: deep })).error).toMatchObject({ code: -32602, data: { code: 'schema_invalid' } });
    expect((await session.request('tools/call', { name: 'no-such-tool', arguments: {} })).error).toMatchObject({ code: -32602, data: { code: 'mcp_tool_unknown' } });
    expect((await session.request('tools/list', { cursor: 'abc' })).error).toMatchObject({ code: -32602 });
    const after = await ledgerRecords(ws);
    expect(after.filter((record) => record.seq >= before && record.type === 'action.received')).toEqual([]);
  });

  it('answers a call the upstream never answers with a timeout error, and records it as failed', async () => {
    const answer = await session.request('tools/call', { name: 'hang', arguments: {} });
    expect(answer.error).toMatchObject({ code: -32001, data: { code: 'mcp_upstream_timeout' } });
    const echoed = await session.request('tools/call', { name: 'echo', arguments: { text: 'still serving' } });
    expect(echoed.result).toMatchObject({ content: [{ text: 'still serving' }] });
  });

  it('answers a call that crashes the upstream with an error, and starts the upstream again on the next request', async () => {
    const answer = await session.request('tools/call', { name: 'crash', arguments: {} });
    expect(answer.error).toMatchObject({ code: -32000, data: { code: 'mcp_upstream_unavailable' } });
    const echoed = await session.request('tools/call', { name: 'echo', arguments: { text: 'after the crash' } });
    expect(echoed.result).toMatchObject({ content: [{ text: 'after the crash' }] });
    expect(session.stderr()).toContain('started again');
  });

  it('leaves a ledger that verifies, with the interrupted calls recorded as failed and the pair intact', async () => {
    const records = await ledgerRecords(ws);
    const completed = records.filter((record) => record.type === 'execution.completed');
    expect(completed.map((record) => record.data.outcome)).toEqual(['succeeded', 'failed', 'succeeded', 'failed', 'succeeded']);
    for (const record of completed) expect(record.data.executedPayloadHash).toBe(record.data.approvedPayloadHash);
    const { code, report } = await verifyLedger(ws);
    expect(report.valid, JSON.stringify(report)).toBe(true);
    expect(code).toBe(0);
  });
});
