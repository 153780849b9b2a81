import type { Socket } from 'node:net';

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
  if (socket.writable) socket.end(`HTTP/1.1 400 Bad Request\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  else socket.destroy(error);
}
