import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { errorResponse, JSONRPC_INVALID_REQUEST, JSONRPC_PARSE_ERROR, sniffRequestId, svcError } from './jsonrpc.js';

/**
 * The agent side of `svc mcp serve`: MCP's stdio framing (one JSON-RPC message per line) on the
 * SDK's `Transport` contract, with a size limit. The SDK's own StdioServerTransport closes the
 * session when a line exceeds its buffer and answers nothing to a line it cannot parse; a wrapper
 * must instead answer every bad line with a JSON-RPC error and keep serving, so this one does:
 *
 *   longer than maxMessageBytes  → -32600, its bytes discarded up to the next newline
 *   not JSON                     → -32700
 *   JSON but not JSON-RPC 2.0    → -32600
 *
 * The answer carries the request's id when the first bytes of the line name one.
 */
export class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private buffered = 0;
  /** While discarding an oversized line: its first bytes (for the id) and its length so far. */
  private discarding: { head: string; bytes: number } | undefined;
  private closed = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly maxMessageBytes: number,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onInputError);
    this.output.on('error', this.onInputError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    const line = `${JSON.stringify(message)}\n`;
    if (!this.output.write(line)) await new Promise<void>((resolve) => this.output.once('drain', resolve));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.pause();
    this.chunks = [];
    this.onclose?.();
  }

  private readonly onEnd = (): void => {
    void this.close();
  };

  private readonly onInputError = (error: Error): void => {
    this.onerror?.(error);
    void this.close();
  };

  private readonly onData = (chunk: Buffer): void => {
    let offset = 0;
    while (offset < chunk.length) {
      const newline = chunk.indexOf(10, offset);
      const end = newline === -1 ? chunk.length : newline;
      const piece = chunk.subarray(offset, end);
      offset = end + 1;
      if (this.discarding) {
        this.discarding.bytes += piece.length;
        if (newline !== -1) this.finishDiscarding();
        continue;
      }
      if (this.buffered + piece.length > this.maxMessageBytes) {
        const head = Buffer.concat([...this.chunks, piece.subarray(0, 4096)]).toString('utf8', 0, 4096);
        this.discarding = { head, bytes: this.buffered + piece.length };
        this.chunks = [];
        this.buffered = 0;
        if (newline !== -1) this.finishDiscarding();
        continue;
      }
      if (newline === -1) {
        // Copied: the stream may reuse the chunk's memory.
        this.chunks.push(Buffer.from(piece));
        this.buffered += piece.length;
        continue;
      }
      const line = this.chunks.length === 0 ? piece.toString('utf8') : Buffer.concat([...this.chunks, piece]).toString('utf8');
      this.chunks = [];
      this.buffered = 0;
      this.handleLine(line);
    }
  };

  private finishDiscarding(): void {
    const { head, bytes } = this.discarding as { head: string; bytes: number };
    this.discarding = undefined;
    this.reply(
      sniffRequestId(head),
      svcError(JSONRPC_INVALID_REQUEST, 'mcp_message_too_large', `message of ${bytes} bytes is larger than mcp.maxMessageBytes (${this.maxMessageBytes}); it was discarded`),
    );
  }

  private handleLine(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      this.reply(sniffRequestId(line.slice(0, 4096)), svcError(JSONRPC_PARSE_ERROR, 'mcp_parse_error', `not JSON: ${(error as Error).message}`));
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success) {
      const id = typeof json === 'object' && json !== null && 'id' in json ? (json as { id: unknown }).id : undefined;
      const usable = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
      this.reply(usable, svcError(JSONRPC_INVALID_REQUEST, 'mcp_invalid_message', 'not a JSON-RPC 2.0 request, notification or response'));
      return;
    }
    try {
      this.onmessage?.(parsed.data);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  private reply(id: string | number | null, error: ReturnType<typeof svcError>): void {
    void this.send(errorResponse(id, error));
  }
}
