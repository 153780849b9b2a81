import { isIP } from 'node:net';
import { SvcError } from '../errors.js';

/**
 * The proxy has no network authentication (DESIGN.md section 9), so it must be reachable only
 * from this machine, and only by callers that meant to reach it: it binds loopback, refuses a
 * Host header that is not a loopback name (DNS rebinding) and refuses browser requests from a
 * foreign Origin (drive-by POSTs from web pages).
 */
export function isLoopbackAddress(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const family = isIP(bare);
  if (family === 4) return bare.startsWith('127.');
  if (family === 6) return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
  return false;
}

export function assertLoopbackBind(host: string): void {
  if (host === 'localhost' || isLoopbackAddress(host)) return;
  throw new SvcError(
    'bind_not_loopback',
    `refusing to listen on ${host}: svc proxy has no network authentication and binds loopback only (127.0.0.1, ::1 or localhost). ` +
      'Run it beside the caller (same machine, runner or pod) instead of exposing it.',
  );
}

/** The host part of a Host header (`name`, `name:port`, `[v6]:port`), lowercased. */
function hostName(header: string): string {
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(0, value.indexOf(']') + 1);
  const colon = value.indexOf(':');
  return colon === -1 ? value : value.slice(0, colon);
}

export function isLoopbackHostHeader(header: string | undefined): boolean {
  if (header === undefined || header.length === 0 || header.length > 300) return false;
  const name = hostName(header);
  return name === 'localhost' || name.endsWith('.localhost') || isLoopbackAddress(name);
}

/**
 * A browser request is accepted only from the proxy's own origin: a page served by another local
 * server (another port) is as foreign as a web site. No Origin means not a browser.
 */
export function isAllowedOrigin(origin: string | undefined, hostHeader: string | undefined): boolean {
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return url.protocol === 'http:' && hostHeader !== undefined && url.host === hostHeader.trim().toLowerCase() && isLoopbackHostHeader(url.host);
}
