import { randomBytes } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Enforcer } from '../proxy/enforcer.js';
import {
  errorResponse,
  isNotification,
  isRequest,
  isResponse,
  JSONRPC_INVALID_PARAMS,
  JSONRPC_INVALID_REQUEST,
  MCP_CONNECTION_CLOSED,
  MCP_REQUEST_TIMEOUT,
  svcError,
  type JsonRpcError,
} from './jsonrpc.js';
import { callerOf, type McpCaller } from './mcp-action.js';
import type { PinBook } from './pin-book.js';
import { decidePinCheck, isListed, pinEvents, type ToolStanding } from './pin-check.js';
import { presentTool, type PresentedTool } from './tool-definition.js';
import { gateToolCall, type CallAnswer } from './tool-call-gate.js';

/**
 * `svc mcp serve` for one session: the agent's MCP client on one side (downstream), the real
 * server on the other (upstream), JSON-RPC relayed between them message by message. Only three
 * methods are svc's business:
 *
 *   initialize    forwarded with the agent's own capabilities and client info; the upstream's answer
 *                 (capabilities, instructions, server info) goes back unchanged: the agent sees the
 *                 server it asked for
 *   tools/list    answered from a fresh read of every page upstream, each definition checked against
 *                 its pin (pinned on first use when configured): only pinned, unchanged tools are shown
 *   tools/call    through the gate (tool-call-gate.ts): pin check again, policy, ActionPass, verify,
 *                 forward, record
 *
 * Everything else (resources, prompts, completions, logging, ping, notifications, and the server's
 * own requests to the client such as sampling, roots and elicitation) is relayed unchanged. The
 * wrapper talks to the upstream under ids of its own, so its own tools/list reads never collide
 * with the agent's ids; answers go back under the agent's id. The SDK's Client and Server classes
 * are not used on the relay path because each terminates the protocol (its own initialize, progress
 * tokens, capability checks) and would change what is relayed.
 *
 * An upstream that crashes is started again on the next request (initialize replayed); one that
 * hangs is answered for with a timeout error. Either way the agent gets a JSON-RPC error, never
 * silence, and an interrupted call's outcome is recorded as failed.
 */
export interface WrapperOptions {
  server: string;
  /** Makes a fresh upstream transport (the first start and every restart). */
  upstream: () => Transport;
  downstream: Transport;
  enforcer: Enforcer;
  pins: PinBook;
  firstUse: 'pin' | 'require';
  unpinned: 'deny' | 'step_up';
  requestTimeoutMs: number;
  /** `agent:<name>` to record instead of the MCP client's own name. */
  agent?: string;
  log: (line: string) => void;
}

interface Pending {
  method: string;
  resolve: (answer: CallAnswer) => void;
  timer: NodeJS.Timeout;
  progressToken?: string | number;
}

interface Definitions {
  tools: unknown[];
  presented: PresentedTool[];
  standings: Map<string, ToolStanding>;
  /** PinBook.version the standings were decided against. */
  pinsVersion: number;
  /** The listGeneration the tools were read in. */
  generation: number;
}

/** A restart is not attempted again sooner than this after one failed. */
const RESTART_BACKOFF_MS = 2_000;
/** Pages of tools/list read at most: an upstream whose cursors never end is refused, not followed forever. */
const MAX_LIST_PAGES = 1_000;

export class McpWrapper {
  private upstream: Transport | undefined;
  private ready: Promise<void> | undefined;
  private upstreamFailure: { at: number; message: string } | undefined;
  private initializeParams: Record<string, unknown> | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Agent's request id → the id it was forwarded under, while in flight (for cancellation). */
  private readonly forwarded = new Map<RequestId, number>();
  private readonly cancelledIds = new Set<RequestId>();
  private definitions: Definitions | undefined;
  /** Bumped by every tools/list_changed: a read that started before it is stale. */
  private listGeneration = 0;
  private pinCheckQueue: Promise<unknown> = Promise.resolve();
  /** The upstream's capabilities from its initialize answer. */
  private upstreamCapabilities: Record<string, unknown> | undefined;
  private readonly sessionId = randomBytes(6).toString('base64url');
  private caller: McpCaller;
  private closing = false;
  /** Requests of the agent being handled, so shutdown waits for their records before the ledger closes. */
  private readonly handling = new Set<Promise<void>>();
  private readonly closed: Promise<void>;
  private resolveClosed!: () => void;

  constructor(private readonly options: WrapperOptions) {
    this.caller = callerOf(undefined, this.sessionId, options.server, options.agent);
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
  }

  /** Starts serving; resolves when the agent closed the session and everything is shut down. */
  async run(): Promise<void> {
    const { downstream } = this.options;
    downstream.onmessage = (message) => this.onDownstream(message);
    downstream.onerror = (error) => this.options.log(`agent connection: ${error.message}`);
    downstream.onclose = () => void this.close();
    await downstream.start();
    return this.closed;
  }

  async close(): Promise<void> {
    if (this.closing) return this.closed;
    this.closing = true;
    const upstream = this.upstream;
    this.upstream = undefined;
    this.failPending('svc mcp serve is shutting down');
    await Promise.allSettled([...this.handling]);
    await upstream?.close().catch(() => undefined);
    await this.options.downstream.close().catch(() => undefined);
    this.resolveClosed();
    return this.closed;
  }

  // -------------------------------------------------------------------------------------------
  // From the agent

  private onDownstream(message: JSONRPCMessage): void {
    if (isRequest(message)) {
      const handled = this.onRequest(message.id, message.method, message.params)
        .catch((error: unknown) => {
          this.options.log(`${message.method} failed: ${(error as Error).stack ?? String(error)}`);
          this.reply(message.id, { error: svcError(-32603, 'internal_error', `svc could not handle ${message.method}: ${(error as Error).message}`) });
        })
        .finally(() => this.handling.delete(handled));
      this.handling.add(handled);
    } else if (isNotification(message)) {
      this.onNotification(message as JSONRPCMessage & { method: string; params?: Record<string, unknown> });
    } else if (isResponse(message)) {
      // The agent answering the upstream's own request (sampling, roots, elicitation): ids are the upstream's.
      this.sendUpstream(message);
    }
  }

  private async onRequest(id: RequestId, method: string, params: Record<string, unknown> | undefined): Promise<void> {
    switch (method) {
      case 'initialize':
        return this.reply(id, await this.initialize(params));
      case 'tools/list':
        return this.reply(id, await this.listTools(params));
      case 'tools/call': {
        const answer = await this.callTool(id, params);
        this.cancelledIds.delete(id);
        if (answer) this.reply(id, answer);
        return;
      }
      case 'ping':
        if (!this.upstream) return this.reply(id, { result: {} });
        break;
      default:
        break;
    }
    const problem = await this.ensureUpstream();
    if (problem) return this.reply(id, { error: problem });
    this.reply(id, await this.requestUpstream(method, params, id));
  }

  private onNotification(message: JSONRPCMessage & { method: string; params?: Record<string, unknown> }): void {
    if (message.method === 'notifications/cancelled') {
      const requestId = message.params?.requestId as RequestId | undefined;
      if (requestId === undefined) return;
      const upstreamId = this.forwarded.get(requestId);
      if (upstreamId === undefined) {
        this.cancelledIds.add(requestId);
        return;
      }
      this.sendUpstream({ ...message, params: { ...message.params, requestId: upstreamId } } as JSONRPCMessage);
      return;
    }
    this.sendUpstream(message);
    if (message.method === 'notifications/initialized' && this.upstreamCapabilities?.tools !== undefined) {
      // Check the definitions now, so first-use pins and changes are recorded when the session starts.
      void this.currentDefinitions().catch((error: unknown) => this.options.log(`tools/list after initialize: ${(error as Error).message}`));
    }
  }

  private async initialize(params: Record<string, unknown> | undefined): Promise<CallAnswer> {
    this.initializeParams = params ?? {};
    const clientInfo = this.initializeParams.clientInfo as { name?: unknown } | undefined;
    this.caller = callerOf(clientInfo?.name, this.sessionId, this.options.server, this.options.agent);
    const problem = await this.ensureUpstream({ initialize: false });
    if (problem) return { error: problem };
    const answer = await this.requestUpstream('initialize', this.initializeParams);
    this.afterInitialize(answer);
    return answer;
  }

  private afterInitialize(answer: CallAnswer): void {
    if (!('result' in answer)) return;
    const capabilities = answer.result.capabilities;
    this.upstreamCapabilities = typeof capabilities === 'object' && capabilities !== null ? (capabilities as Record<string, unknown>) : {};
    const version = answer.result.protocolVersion;
    // The HTTP transport sends the negotiated version as a header from now on (what the SDK's Client does).
    if (typeof version === 'string') this.upstream?.setProtocolVersion?.(version);
  }

  private async listTools(params: Record<string, unknown> | undefined): Promise<CallAnswer> {
    if (params?.cursor !== undefined) {
      return { error: svcError(JSONRPC_INVALID_PARAMS, 'mcp_cursor_unknown', 'svc mcp serve returns every tool in one page and never hands out a cursor; call tools/list without one') };
    }
    const problem = await this.ensureUpstream();
    if (problem) return { error: problem };
    const definitions = await this.currentDefinitions();
    if ('error' in definitions) return definitions;
    const hidden = [...definitions.standings].filter(([, standing]) => !isListed(standing)).map(([name, standing]) => `${name} (${standing.status})`);
    if (hidden.length > 0) this.options.log(`tools left out of tools/list: ${hidden.join(', ')}`);
    return { result: { tools: definitions.tools.filter((tool) => isListedTool(tool, definitions.standings)) } };
  }

  private async callTool(id: RequestId, params: Record<string, unknown> | undefined): Promise<CallAnswer | undefined> {
    const problem = await this.ensureUpstream();
    if (problem) return { error: problem };
    const { enforcer, server, unpinned, log } = this.options;
    return gateToolCall(params, {
      enforcer,
      server,
      caller: this.caller,
      unpinned,
      log,
      cancelled: () => this.cancelledIds.has(id),
      standing: async (tool) => {
        // Checked again now, against the lock as it is on disk and the definitions as last listed.
        const definitions = await this.currentDefinitions({ reverify: true });
        if ('error' in definitions) throw new Error(`the tool list cannot be read from ${server}: ${definitions.error.message}`);
        return definitions.standings.get(tool);
      },
      forward: (sent) => this.requestUpstream('tools/call', sent, id),
    });
  }

  // -------------------------------------------------------------------------------------------
  // Definitions and pins

  /**
   * The upstream's tools with where each stands against its pin. Read again (every page) when a
   * tools/list_changed arrived since the last read, or when `reverify` is not set (an explicit
   * tools/list); with `reverify`, the last read is checked against the lock as it is now.
   */
  private async currentDefinitions(options: { reverify?: boolean } = {}): Promise<Definitions | { error: JsonRpcError }> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const generation = this.listGeneration;
      const cached = this.definitions;
      let tools: unknown[];
      let presented: PresentedTool[];
      if (options.reverify && cached && cached.generation === generation) {
        await this.options.pins.refresh();
        // Same definitions, same pins: the standings computed then still hold.
        if (cached.pinsVersion === this.options.pins.version) return cached;
        ({ tools, presented } = cached);
      } else {
        const read = await this.readAllTools();
        if ('error' in read) return read;
        tools = read.tools;
        presented = tools.map(presentTool).filter((tool): tool is PresentedTool => tool !== undefined);
      }
      const standings = await this.checkPins(presented);
      if (generation === this.listGeneration) {
        this.definitions = { tools, presented, standings, generation, pinsVersion: this.options.pins.version };
        return this.definitions;
      }
      // The list changed while it was being read or checked: read it again.
    }
    return { error: svcError(MCP_CONNECTION_CLOSED, 'mcp_tools_unstable', `${this.options.server} kept changing its tool list while svc read it`) };
  }

  /** One check at a time: two reads racing (session start and the agent's first list) must not pin or record twice. */
  private checkPins(presented: PresentedTool[]): Promise<Map<string, ToolStanding>> {
    const checked = this.pinCheckQueue.then(() => this.checkPinsNow(presented));
    this.pinCheckQueue = checked.catch(() => undefined);
    return checked;
  }

  private async checkPinsNow(presented: PresentedTool[]): Promise<Map<string, ToolStanding>> {
    const { pins, server, firstUse, enforcer, log } = this.options;
    await pins.refresh();
    let standings = decidePinCheck(pins.serverPins(server), presented, firstUse);
    const toPin = [...standings.values()].flatMap((standing) => (standing.status === 'to_pin' ? [standing.definition] : []));
    if (toPin.length > 0) {
      try {
        const pinned = await pins.pinFirstUse(server, toPin);
        if (pinned.length > 0) log(`pinned on first use: ${pinned.map((entry) => entry.tool).join(', ')}`);
      } catch (error) {
        log(`could not pin ${toPin.map((definition) => definition.name).join(', ')}: ${(error as Error).message}`);
      }
      standings = decidePinCheck(pins.serverPins(server), presented, firstUse);
    }
    for (const [tool, standing] of standings) {
      if (standing.status === 'changed') log(`${server}/${tool} changed since it was pinned: pinned ${standing.pinnedHash}, presented ${standing.presentedHash}; denied until svc mcp pins approve ${server} --tool ${tool}`);
      if (standing.status === 'lock_unusable') {
        log(`the pin lock cannot be used, so every tool is denied: ${standing.message}`);
        break;
      }
    }
    await enforcer.recordPins(pinEvents(server, standings, (tool) => enforcer.state.mcpTool(server, tool)));
    return standings;
  }

  private async readAllTools(): Promise<{ tools: unknown[] } | { error: JsonRpcError }> {
    const tools: unknown[] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
      const answer = await this.requestUpstream('tools/list', cursor === undefined ? {} : { cursor });
      if ('error' in answer) return answer;
      const listed = answer.result.tools;
      if (!Array.isArray(listed)) return { error: svcError(MCP_CONNECTION_CLOSED, 'mcp_upstream_invalid', `${this.options.server} answered tools/list without a tools array`) };
      tools.push(...listed);
      const next = answer.result.nextCursor;
      if (typeof next !== 'string' || next === '') return { tools };
      if (cursors.has(next)) return { error: svcError(MCP_CONNECTION_CLOSED, 'mcp_upstream_invalid', `${this.options.server} handed out the tools/list cursor ${JSON.stringify(next)} twice`) };
      cursors.add(next);
      cursor = next;
    }
    return { error: svcError(MCP_CONNECTION_CLOSED, 'mcp_upstream_invalid', `${this.options.server} lists more than ${MAX_LIST_PAGES} pages of tools`) };
  }

  // -------------------------------------------------------------------------------------------
  // The upstream

  /** Starts the upstream if it is not running (again, after a crash, replaying initialize). Returns an error to answer with, or undefined. */
  private async ensureUpstream(options: { initialize?: boolean } = {}): Promise<JsonRpcError | undefined> {
    if (this.closing) return svcError(MCP_CONNECTION_CLOSED, 'mcp_closing', 'svc mcp serve is shutting down');
    if (!this.ready) {
      const failure = this.upstreamFailure;
      if (failure && Date.now() - failure.at < RESTART_BACKOFF_MS) return svcError(MCP_CONNECTION_CLOSED, 'mcp_upstream_unavailable', failure.message);
      const replay = options.initialize !== false;
      if (replay && this.initializeParams === undefined) return svcError(JSONRPC_INVALID_REQUEST, 'mcp_not_initialized', 'send initialize first');
      this.ready = this.startUpstream(replay);
    }
    const ready = this.ready;
    try {
      await ready;
      return undefined;
    } catch (error) {
      if (this.ready === ready) this.ready = undefined;
      return svcError(MCP_CONNECTION_CLOSED, 'mcp_upstream_unavailable', (error as Error).message);
    }
  }

  private async startUpstream(replayInitialize: boolean): Promise<void> {
    const { server, log } = this.options;
    let transport: Transport;
    try {
      transport = this.options.upstream();
      transport.onmessage = (message) => this.onUpstream(transport, message);
      transport.onerror = (error) => log(`upstream ${server}: ${error.message}`);
      transport.onclose = () => this.onUpstreamClosed(transport);
      this.upstream = transport;
      await transport.start();
    } catch (error) {
      return this.startFailed(`upstream ${server} could not be started: ${(error as Error).message}`);
    }
    if (!replayInitialize) return;
    const answer = await this.requestUpstream('initialize', this.initializeParams);
    if ('error' in answer) return this.startFailed(`upstream ${server} was started again after it stopped, but refused initialize: ${answer.error.message}`);
    this.afterInitialize(answer);
    this.sendUpstream({ jsonrpc: '2.0', method: 'notifications/initialized' });
    this.definitions = undefined;
    log(`upstream ${server} started again`);
  }

  private startFailed(message: string): never {
    this.upstreamFailure = { at: Date.now(), message };
    const transport = this.upstream;
    this.upstream = undefined;
    void transport?.close().catch(() => undefined);
    throw new Error(message);
  }

  private onUpstreamClosed(transport: Transport): void {
    if (transport !== this.upstream) return;
    this.upstream = undefined;
    this.ready = undefined;
    if (this.closing) return;
    const message = `upstream ${this.options.server} exited`;
    this.options.log(`${message}; it is started again on the next request`);
    this.failPending(message);
  }

  private onUpstream(transport: Transport, message: JSONRPCMessage): void {
    if (transport !== this.upstream) return;
    if (isResponse(message)) {
      const pending = typeof message.id === 'number' ? this.pending.get(message.id) : undefined;
      if (!pending) return this.options.log(`dropped an answer from ${this.options.server} to an unknown request id ${JSON.stringify(message.id)}`);
      this.settle(message.id as number, 'result' in message ? { result: message.result } : { error: message.error });
      return;
    }
    if (isNotification(message)) {
      if (message.method === 'notifications/tools/list_changed') this.listGeneration += 1;
      if (message.method === 'notifications/progress') this.extendFor(message.params?.progressToken);
    }
    // Notifications and the upstream's own requests go to the agent as they are.
    void this.options.downstream.send(message).catch((error: unknown) => this.options.log(`agent connection: ${(error as Error).message}`));
  }

  /**
   * Sends a request upstream under a fresh id of the wrapper's and waits for its answer; always
   * resolves, with an error answer when the upstream is gone, refuses the send, or times out.
   */
  private requestUpstream(method: string, params: Record<string, unknown> | undefined, agentId?: RequestId): Promise<CallAnswer> {
    const transport = this.upstream;
    if (!transport) return Promise.resolve({ error: svcError(MCP_CONNECTION_CLOSED, 'mcp_upstream_unavailable', `upstream ${this.options.server} is not running`) });
    const id = this.nextId;
    this.nextId += 1;
    const meta = params?._meta as { progressToken?: unknown } | undefined;
    const progressToken = typeof meta?.progressToken === 'string' || typeof meta?.progressToken === 'number' ? meta.progressToken : undefined;
    return new Promise<CallAnswer>((resolve) => {
      const pending: Pending = { method, resolve, timer: this.timeoutFor(id, method), ...(progressToken !== undefined && { progressToken }) };
      this.pending.set(id, pending);
      if (agentId !== undefined) this.forwarded.set(agentId, id);
      const request = { jsonrpc: '2.0' as const, id, method, ...(params !== undefined && { params }) };
      transport.send(request as JSONRPCMessage).catch((error: unknown) => {
        this.settle(id, { error: svcError(MCP_CONNECTION_CLOSED, 'mcp_upstream_unavailable', `${method} could not be sent to ${this.options.server}: ${(error as Error).message}`) });
      });
    }).finally(() => {
      if (agentId !== undefined) this.forwarded.delete(agentId);
    });
  }

  private timeoutFor(id: number, method: string): NodeJS.Timeout {
    const { requestTimeoutMs, server } = this.options;
    const timer = setTimeout(() => {
      this.sendUpstream({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: `svc: no answer within ${requestTimeoutMs} ms` } });
      this.settle(id, { error: svcError(MCP_REQUEST_TIMEOUT, 'mcp_upstream_timeout', `upstream ${server} did not answer ${method} within ${requestTimeoutMs / 1000} s (mcp.requestTimeoutSeconds)`) });
    }, requestTimeoutMs);
    timer.unref();
    return timer;
  }

  /** A progress notification shows the upstream is working: its request's timeout starts over. */
  private extendFor(progressToken: unknown): void {
    if (typeof progressToken !== 'string' && typeof progressToken !== 'number') return;
    for (const [id, pending] of this.pending) {
      if (pending.progressToken !== progressToken) continue;
      clearTimeout(pending.timer);
      pending.timer = this.timeoutFor(id, pending.method);
    }
  }

  private settle(id: number, answer: CallAnswer): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    pending.resolve(answer);
  }

  private failPending(message: string): void {
    for (const id of [...this.pending.keys()]) this.settle(id, { error: svcError(MCP_CONNECTION_CLOSED, 'mcp_upstream_unavailable', message) });
  }

  private sendUpstream(message: JSONRPCMessage): void {
    const transport = this.upstream;
    if (!transport) return;
    transport.send(message).catch((error: unknown) => this.options.log(`could not relay ${describe(message)} to ${this.options.server}: ${(error as Error).message}`));
  }

  private reply(id: RequestId, answer: CallAnswer): void {
    const message = 'error' in answer ? errorResponse(id, answer.error) : ({ jsonrpc: '2.0', id, result: answer.result } as JSONRPCMessage);
    void this.options.downstream.send(message).catch((error: unknown) => this.options.log(`agent connection: ${(error as Error).message}`));
  }
}

function isListedTool(tool: unknown, standings: ReadonlyMap<string, ToolStanding>): boolean {
  const name = typeof tool === 'object' && tool !== null ? (tool as { name?: unknown }).name : undefined;
  const standing = typeof name === 'string' ? standings.get(name) : undefined;
  return standing !== undefined && isListed(standing);
}

function describe(message: JSONRPCMessage): string {
  return 'method' in message ? message.method : `the answer to ${String((message as { id?: unknown }).id)}`;
}
