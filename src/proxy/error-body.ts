import type { Socket } from 'node:net';

/**
 * Every error code the proxy answers with, and its HTTP status: the table in docs/http-api.md
 * ("Errors"), which test/e2e/proxy-fuzz.test.ts holds to this list, both ways. Callers branch on
 * the code, so a code is added here (and there) or not answered at all.
 */
export const PROXY_ERROR_STATUS = {
  schema_invalid: 400,
  json_invalid: 400,
  body_empty: 400,
  body_invalid: 400,
  http_invalid: 400,
  handler_missing: 400,
  approval_invalid: 400,
  host_not_loopback: 403,
  origin_forbidden: 403,
  approval_tenant_mismatch: 403,
  not_found: 404,
  approval_unknown: 404,
  hook_runtime_unknown: 404,
  approval_already_granted: 409,
  approval_used: 409,
  approval_rejected: 409,
  approval_expired: 409,
  approval_payload_hash_mismatch: 409,
  body_too_large: 413,
  unsupported_media_type: 415,
  internal_error: 500,
  ledger_unavailable: 503,
  trust_store_invalid: 503,
  trust_store_io: 503,
} as const satisfies Record<string, number>;

export type ProxyErrorCode = keyof typeof PROXY_ERROR_STATUS;

export function isProxyErrorCode(code: string): code is ProxyErrorCode {
  return Object.hasOwn(PROXY_ERROR_STATUS, code);
}

/** The one error body of the proxy (DESIGN.md section 7). */
export interface ErrorBody {
  error: { code: string; message: string; issues?: { path: string; message: string }[] };
}

export function errorBody(code: string, message: string, issues?: { path: string; message: string }[]): ErrorBody {
  return { error: { code, message, ...(issues && { issues }) } };
}

/**
 * fastify's `clientErrorHandler`: bytes the HTTP parser rejects still get the one error body, as
 * a bare 400 written to the socket (there is no request to reply to).
 */
export function answerInvalidHttp(error: Error, socket: Socket): void {
  const body = JSON.stringify(errorBody('http_invalid', 'the request is not valid HTTP/1.1'));
  if (socket.writable) socket.end(`HTTP/1.1 ${PROXY_ERROR_STATUS.http_invalid} Bad Request\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  else socket.destroy(error);
}
