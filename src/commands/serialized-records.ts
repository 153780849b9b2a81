import type { NormalizedAction } from '../actionpass/action.js';
import type { ActionPassClaims } from '../actionpass/actionpass-token.js';
import { canonicalJson } from '../events/canonical.js';
import type { LedgerEvent } from '../events/catalogue.js';
import type { SerializedEvent } from '../events/ledger-writer.js';
import { passIssued } from './authorize.js';

/**
 * The two records of a decision that carry its largest values, with their data as JCS text built
 * around text the enforcer already holds: the action's (hashed for `actionHash`) and the claims'
 * (signed into the pass), so neither is serialized a second time for the ledger. Keys are written
 * in JCS order and every other value goes through canonicalJson, so each text is exactly
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

/**
 * `passIssued(claims, token)` with its data as text; `claimsJson` is `canonicalJson(claims)`, the
 * text that was signed, and `tokenJson`, when given, `canonicalJson(token)` (jws.ts compactJwsJson).
 */
export function serializedPassIssued(claims: ActionPassClaims, claimsJson: string, token: string, tokenJson?: string): SerializedEvent {
  const event = passIssued(claims, token);
  const dataJson = `{"actionId":${canonicalJson(claims.actionId)},"claims":${claimsJson},"passId":${canonicalJson(claims.jti)},"token":${tokenJson ?? canonicalJson(token)}}`;
  return { event, dataJson };
}
