import type { Decided, Executed } from './enforcer.js';
import { decisionBody, type DecisionBody } from './responses.js';

/**
 * The decision body as the JSON text the proxy answers: exactly `JSON.stringify(decisionBody())`,
 * written member by member. Each member is JSON.stringify's own text for its value, in the body's
 * key order, so the whole is what JSON.stringify writes (a member whose value has no JSON form is
 * left out, as JSON.stringify leaves it out). Stringifying the small members one by one costs less
 * than stringifying the body (or a copy of it without its pass) in one call, which measured about
 * twice as slow, most of it in the copy.
 *
 * The pass is most of an allow's body (a token of about a kilobyte, and its claims), and the
 * enforcer already holds both as JSON text: the token's (when it needs no escaping), and the
 * claims' JCS text it signed, which is their JSON.stringify text too while their keys are in order
 * and their values plain. Spliced in when that holds; serialized like any other member when not. A property test holds this to
 * JSON.stringify.
 */
export function decisionBodyJson(decided: Decided | Executed): string {
  const body = decisionBody(decided);
  const passJson = passAsText(body, decided);
  let text = '{';
  for (const key of Object.keys(body) as (keyof DecisionBody)[]) {
    const json: string | undefined = key === 'actionPass' && passJson !== undefined ? passJson : JSON.stringify(body[key]);
    if (json === undefined) continue;
    text += `${text.length === 1 ? '' : ','}${JSON.stringify(key)}:${json}`;
  }
  return `${text}}`;
}

/** The body's `actionPass` as JSON text from the text the enforcer holds, when that text is JSON.stringify's. */
function passAsText(body: DecisionBody, decided: Decided | Executed): string | undefined {
  const actionPass = body.actionPass;
  const pass = decided.pass;
  if (actionPass === undefined || pass?.claimsJson === undefined || pass.tokenJson === undefined) return undefined;
  if (actionPass.token !== pass.token || actionPass.claims !== pass.claims || !isFlatSorted(actionPass.claims)) return undefined;
  return `{"token":${pass.tokenJson},"claims":${pass.claimsJson}}`;
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
