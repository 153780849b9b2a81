import type { Decided, Executed } from './enforcer.js';
import { decisionBody } from './responses.js';

/** A compact JWS as the signer writes it: three base64url parts, nothing JSON would escape. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * The decision body as the JSON text the proxy answers: exactly `JSON.stringify(decisionBody())`,
 * built without serializing the ActionPass again. The pass is most of an allow's body (a token of
 * about a kilobyte, and its claims), and the enforcer already holds both as text: the token, and
 * the claims' JCS text it signed, which is their JSON.stringify text too while their keys are in
 * order and their values plain. Anything else is serialized whole, as before. A property test
 * holds this to JSON.stringify.
 */
export function decisionBodyJson(decided: Decided | Executed): string {
  const body = decisionBody(decided);
  const claimsJson = decided.pass?.claimsJson;
  const { actionPass, approval, execution, ...head } = body;
  if (actionPass === undefined || claimsJson === undefined || actionPass.claims !== decided.pass?.claims || !COMPACT_JWS.test(actionPass.token) || !isFlatSorted(actionPass.claims)) {
    return JSON.stringify(body);
  }
  // JSON.stringify writes the members in the body's order: head's, then actionPass, approval, execution.
  const headJson = JSON.stringify(head);
  const tailJson = JSON.stringify({ ...(approval !== undefined && { approval }), ...(execution !== undefined && { execution }) });
  const pass = `"actionPass":{"token":"${actionPass.token}","claims":${claimsJson}}`;
  return `${headJson.slice(0, -1)},${pass}${tailJson === '{}' ? '}' : `,${tailJson.slice(1)}`}`;
}

/**
 * Own keys in ascending UTF-16 order as JSON.stringify meets them, each value a string or finite
 * number: an object whose JCS text and JSON.stringify text are the same.
 */
function isFlatSorted(value: object): boolean {
  let previous: string | undefined;
  for (const key in value) {
    if (!Object.hasOwn(value, key) || (previous !== undefined && !(previous < key))) return false;
    previous = key;
    const item: unknown = (value as Record<string, unknown>)[key];
    if (typeof item !== 'string' && !(typeof item === 'number' && Number.isFinite(item))) return false;
  }
  return true;
}
