import type { Decided, Executed } from './enforcer.js';
import { decisionBody, type DecisionBody } from './responses.js';

/** The members every decision body starts with, in its key order (responses.ts). */
const HEAD_KEYS = ['status', 'decision', 'explanation', 'action', 'ledger'] as const;

/**
 * The decision body as the JSON text the proxy answers: exactly `JSON.stringify(decisionBody())`,
 * written in pieces in the body's key order: the members every body starts with in one
 * JSON.stringify of a fresh object literal of them, then each other member as JSON.stringify's own
 * text for its value (a member whose value has no JSON form is left out, as JSON.stringify leaves
 * it out). A copy of the body without its pass, made by rest destructuring, took JSON.stringify's
 * slow path: with the run-time strings of a real decision, about 9 µs per allow against about 5
 * µs for this in a micro-benchmark on this VM.
 *
 * The pass is most of an allow's body (a token of about a kilobyte, and its claims), and the
 * enforcer already holds both as JSON text: the token's (when it needs no escaping), and the
 * claims' JCS text it signed, which is their JSON.stringify text too while their keys are in order
 * and their values plain. Spliced in when that holds; serialized like any other member when not.
 * A property test holds this to JSON.stringify.
 */
export function decisionBodyJson(decided: Decided | Executed): string {
  const body = decisionBody(decided);
  const keys = Object.keys(body) as (keyof DecisionBody)[];
  for (let index = 0; index < HEAD_KEYS.length; index += 1) if (keys[index] !== HEAD_KEYS[index]) return JSON.stringify(body);
  const head = JSON.stringify({ status: body.status, decision: body.decision, explanation: body.explanation, action: body.action, ledger: body.ledger });
  const passJson = passAsText(body, decided);
  let text = head.slice(0, -1);
  for (let index = HEAD_KEYS.length; index < keys.length; index += 1) {
    const key = keys[index] as keyof DecisionBody;
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
