import type { NormalizedAction } from '../actionpass/action.js';
import type { ActionPassClaims } from '../actionpass/actionpass-token.js';
import { canonicalJson } from '../events/canonical.js';
import type { LedgerEvent } from '../events/catalogue.js';
import type { SerializedEvent } from '../events/ledger-writer.js';
import { passIssued } from './authorize.js';

/**
 * The records of a decision with their data as JCS text. The two that carry its largest values are
 * built around text the enforcer already holds: the action's (hashed for `actionHash`) and the
 * claims' (signed into the pass), so neither is serialized a second time for the ledger; the
 * decision itself (policy.decided) is written out key by key, which costs about half of
 * serializing its object (a walk for key order, then JSON.stringify). Keys are written in JCS
 * order and every other value goes through canonicalJson, so each text is exactly
 * `canonicalJson(event.data)`; test/commands/serialized-records.test.ts holds them to it.
 */

const RECEIVED_KEYS = 5;

/**
 * `event` (the decider's `action.received`) with its data as text, when the data is the shape
 * this knows and names `action` itself; any other event as it is, for the writer to serialize.
 */
export function serializedReceived(event: LedgerEvent, action: NormalizedAction, actionJson: string): LedgerEvent | SerializedEvent {
  if (event.type !== 'action.received') return event;
  const { data } = event;
  if (data.action !== action || Object.keys(data).length !== RECEIVED_KEYS) return event;
  const dataJson = `{"action":${actionJson},"actionHash":${canonicalJson(data.actionHash)},"actionId":${canonicalJson(data.actionId)},"payloadHash":${canonicalJson(data.payloadHash)},"source":${canonicalJson(data.source)}}`;
  return { event, dataJson };
}

/** The data keys of policy.decided, in JCS order. */
const DECIDED_KEYS = ['actionId', 'decision', 'policyHash', 'reasons', 'ruleId'] as const;

/**
 * `event` (a decider's `policy.decided`) with its data as text, when its data has exactly the
 * keys the decider writes, in that order; any other event as it is, for the writer to serialize.
 * So is one with a value JCS cannot write: the writer then refuses it as it always has.
 */
export function serializedDecided(event: LedgerEvent): LedgerEvent | SerializedEvent {
  if (event.type !== 'policy.decided') return event;
  const { data } = event;
  const keys = Object.keys(data);
  if (keys.length !== DECIDED_KEYS.length || DECIDED_KEYS.some((key, index) => keys[index] !== key)) return event;
  try {
    const dataJson = `{"actionId":${canonicalJson(data.actionId)},"decision":${canonicalJson(data.decision)},"policyHash":${canonicalJson(data.policyHash)},"reasons":${canonicalJson(data.reasons)},"ruleId":${canonicalJson(data.ruleId)}}`;
    return { event, dataJson };
  } catch {
    return event;
  }
}

/**
 * `passIssued(claims, token)` with its data as text; `claimsJson` is `canonicalJson(claims)`, the
 * text that was signed, and `tokenJson`, when given, `canonicalJson(token)` (jws.ts signedTokenJson).
 */
export function serializedPassIssued(claims: ActionPassClaims, claimsJson: string, token: string, tokenJson?: string): SerializedEvent {
  const event = passIssued(claims, token);
  const dataJson = `{"actionId":${canonicalJson(claims.actionId)},"claims":${claimsJson},"passId":${canonicalJson(claims.jti)},"token":${tokenJson ?? canonicalJson(token)}}`;
  return { event, dataJson };
}
