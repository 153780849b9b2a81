import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * JSON-RPC 2.0 as the wrapper speaks it on both sides. Error codes are the standard ones (and the
 * MCP SDK's `ErrorCode` values); `data.code` carries svc's stable snake_case code where there is one.
 */
export const JSONRPC_PARSE_ERROR = -32700;
export const JSONRPC_INVALID_REQUEST = -32600;
export const JSONRPC_METHOD_NOT_FOUND = -32601;
export const JSONRPC_INVALID_PARAMS = -32602;
export const JSONRPC_INTERNAL_ERROR = -32603;
/** MCP SDK `ErrorCode.ConnectionClosed`: the upstream went away. */
export const MCP_CONNECTION_CLOSED = -32000;
/** MCP SDK `ErrorCode.RequestTimeout`. */
export const MCP_REQUEST_TIMEOUT = -32001;

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export function errorResponse(id: RequestId | null, error: JsonRpcError): JSONRPCMessage {
  // A parse error has no id to answer to: JSON-RPC says null, which the SDK's types do not model.
  return { jsonrpc: '2.0', id: id as RequestId, error } as JSONRPCMessage;
}

export function svcError(code: number, svcCode: string, message: string, extra: Record<string, unknown> = {}): JsonRpcError {
  return { code, message, data: { code: svcCode, ...extra } };
}

type Message = Record<string, unknown>;

export function isRequest(message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId; method: string; params?: Message } {
  return 'method' in message && 'id' in message;
}

export function isNotification(message: JSONRPCMessage): message is JSONRPCMessage & { method: string; params?: Message } {
  return 'method' in message && !('id' in message);
}

export function isResponse(message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId } & ({ result: Message } | { error: JsonRpcError }) {
  return !('method' in message) && ('result' in message || 'error' in message);
}

/**
 * The id of a message that could not be parsed, read from its first bytes, so a client waiting for
 * an answer to an oversized or malformed request gets one instead of hanging. Null when none can
 * be found: JSON-RPC's answer to a message whose id is unknown.
 */
export function sniffRequestId(head: string): RequestId | null {
  const match = /"id"\s*:\s*(-?\d{1,15}(?![\d.eE])|"((?:[^"\\\n]|\\.){0,256})")/.exec(head);
  if (!match) return null;
  if (match[2] !== undefined) {
    try {
      return JSON.parse(`"${match[2]}"`) as string;
    } catch {
      return null;
    }
  }
  return Number(match[1]);
}
