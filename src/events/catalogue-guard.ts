import { isSha256Text } from './canonical.js';
// A cycle with catalogue.ts, harmless: the constant is read only when a record is checked.
import { LEDGER_FORMAT } from './catalogue.js';
import type { EventType } from './event-types.js';
import { isNumericDate } from './numeric-date.js';

/**
 * The data rules of the event catalogue (catalogue.ts, `eventDataSchemas`) written out by hand,
 * as a yes/no test: zod allocates a copy and an issue list per record, and a verifier checks
 * millions of records. It only ever answers "accepted" for data zod accepts; anything it does not
 * accept goes on to zod, which then decides and words the problem. A test holds the two to the
 * same verdicts.
 */
export function isCatalogueData(type: EventType, data: unknown): boolean {
  if (!isObject(data)) return false;
  switch (type) {
    case 'ledger.genesis':
      return isOrigin(data.origin) && data.format === LEDGER_FORMAT && areKeyEntries(data.keys);
    case 'ledger.checkpoint':
      return isCount(data.size) && isBase64Of32Bytes(data.root) && isStringUpTo(data.note, 65_536);
    case 'ledger.recovered':
      return isCount(data.truncatedBytes) && isText(data.quarantineFile) && isText(data.reason);
    case 'config.loaded':
      return isSha256(data.configHash) && isSha256(data.policyHash);
    case 'action.received':
      return isIdentifier(data.actionId) && isActionSource(data.source) && isRecordedAction(data.action) && isSha256(data.actionHash) && isSha256(data.payloadHash);
    case 'policy.decided':
      return isIdentifier(data.actionId) && isDecision(data.decision) && areReasonCodes(data.reasons) && isText(data.ruleId) && isSha256(data.policyHash);
    case 'actionpass.issued':
      return isIdentifier(data.actionId) && isIdentifier(data.passId) && isActionPassClaims(data.claims) && isStringUpTo(data.token, 16_384);
    case 'approval.requested':
      return isIdentifier(data.actionId) && isIdentifier(data.approvalId) && isSha256(data.actionHash) && isSha256(data.payloadHash) && typeof data.hosted === 'boolean';
    case 'approval.granted':
      return isIdentifier(data.actionId) && isIdentifier(data.approvalId) && isText(data.approvedBy) && isSha256(data.approvedPayloadHash) && isStringUpTo(data.artifact, 16_384);
    case 'approval.rejected':
      return isIdentifier(data.actionId) && isIdentifier(data.approvalId) && isText(data.rejectedBy) && isText(data.reason);
    case 'execution.blocked':
      return isIdentifier(data.actionId) && isReasonCode(data.reason) && isSha256(data.approvedPayloadHash) && isSha256(data.executedPayloadHash);
    case 'execution.completed':
      return (
        isIdentifier(data.actionId) &&
        isIdentifier(data.passId) &&
        isSha256(data.approvedPayloadHash) &&
        isSha256(data.executedPayloadHash) &&
        (data.outcome === 'succeeded' || data.outcome === 'failed') &&
        isSha256(data.resultHash)
      );
    case 'mcp.tool.pinned':
      return isIdentifier(data.server) && isText(data.tool) && isSha256(data.definitionHash);
    case 'mcp.tool.changed':
      return isIdentifier(data.server) && isText(data.tool) && isSha256(data.pinnedHash) && isSha256(data.presentedHash);
    default:
      return false;
  }
}

type Fields = Record<string, unknown>;

/** What zod's objects and records take: an object that is not an array (JSON.parse makes no other kind). */
function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// The patterns are the catalogue's, character for character (its sha256 one is isSha256Text, its
// identifier one isIdentifier).
const BASE64_OF_32_BYTES = /^[A-Za-z0-9+/]{43}=$/;
const REASON_CODE = /^[a-z][a-z0-9_]{0,63}$/;
const ORIGIN = /^[^\s]{1,200}$/;
const KEY_NAME = /^[^\s+]{1,200}$/;
const MAX_TEXT = 16_384;

function isStringUpTo(value: unknown, max: number): boolean {
  return typeof value === 'string' && value.length <= max;
}

function isText(value: unknown): boolean {
  return typeof value === 'string' && value.length <= MAX_TEXT;
}

function isOptionalText(value: unknown): boolean {
  return value === undefined || isText(value);
}

/**
 * The last few sha256 texts `isSha256` passed. Hashes recur in a ledger: a policy's hash in every
 * decision and pass, an action's payload hash in its receipt, pass, approval and execution. A
 * string equal to one of these passes on a comparison, which fails at the first differing digit,
 * instead of a test of all 64 digits. Only texts that passed are kept, so the answer is the same.
 */
const recentSha256 = ['', '', '', '', '', '', '', ''];
let nextRecentSha256 = 0;

function isSha256(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const recent = recentSha256;
  for (let index = 0; index < recent.length; index += 1) if (recent[index] === value) return true;
  if (!isSha256Text(value)) return false;
  recent[nextRecentSha256] = value;
  nextRecentSha256 = (nextRecentSha256 + 1) % recent.length;
  return true;
}

/** 1 at the char code of each character an identifier may hold: A-Z, a-z, 0-9 and `._:@/+-`. */
const IDENTIFIER_CHARS = new Uint8Array(128);
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:@/+-') IDENTIFIER_CHARS[char.charCodeAt(0)] = 1;
const MAX_IDENTIFIER_LENGTH = 200;

/**
 * The catalogue's identifier pattern, `^[A-Za-z0-9._:@\/+-]{1,200}$`, by a table look-up per
 * character: identifiers are short (an action id is some fifteen characters), and entering the
 * regex engine cost more than this loop. A test holds the two to the same verdicts on every
 * character the class leaves out.
 */
function isIdentifier(value: unknown): boolean {
  if (typeof value !== 'string' || value.length < 1 || value.length > MAX_IDENTIFIER_LENGTH) return false;
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code >= 128 || IDENTIFIER_CHARS[code] === 0) return false;
  }
  return true;
}

function isBase64Of32Bytes(value: unknown): boolean {
  return typeof value === 'string' && BASE64_OF_32_BYTES.test(value);
}

function isReasonCode(value: unknown): boolean {
  return typeof value === 'string' && REASON_CODE.test(value);
}

function isOrigin(value: unknown): boolean {
  return typeof value === 'string' && ORIGIN.test(value);
}

/** z.number().int().nonnegative(): a safe integer, at least 0. */
function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}


function isActionSource(value: unknown): boolean {
  return value === 'proxy' || value === 'sdk' || value === 'hook' || value === 'mcp' || value === 'playground';
}

function isDecision(value: unknown): boolean {
  return value === 'allow' || value === 'deny' || value === 'step_up' || value === 'no_opinion';
}

function areReasonCodes(value: unknown): boolean {
  if (!Array.isArray(value) || value.length > 64) return false;
  for (const item of value) if (!isReasonCode(item)) return false;
  return true;
}

/** z.array(publicKeyEntrySchema).min(1).max(16), each entry a strict object of name, alg and publicKey. */
function areKeyEntries(value: unknown): boolean {
  if (!Array.isArray(value) || value.length < 1 || value.length > 16) return false;
  for (const entry of value) {
    if (!isObject(entry)) return false;
    let keys = 0;
    for (const key in entry) {
      if (key !== 'name' && key !== 'alg' && key !== 'publicKey') return false;
      keys += 1;
    }
    if (keys !== 3) return false;
    if (!(typeof entry.name === 'string' && KEY_NAME.test(entry.name)) || entry.alg !== 'Ed25519' || !isBase64Of32Bytes(entry.publicKey)) return false;
  }
  return true;
}

function isRecordedAction(value: unknown): boolean {
  if (!isObject(value) || value.schemaVersion !== 'svc.action.v0') return false;
  const { actor, intent, capability } = value;
  return (
    isObject(actor) &&
    isText(actor.agentId) &&
    isOptionalText(actor.humanOwner) &&
    isOptionalText(actor.runtime) &&
    isText(actor.tenant) &&
    isObject(intent) &&
    isText(intent.taskId) &&
    isOptionalText(intent.declaredGoal) &&
    isObject(capability) &&
    isText(capability.tool) &&
    isText(capability.resource) &&
    isPlainObject(capability.payload)
  );
}

/** z.record takes plain objects only; this is narrower than its test (which also takes some odd prototypes), never wider. */
function isPlainObject(value: unknown): boolean {
  if (!isObject(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function isActionPassClaims(value: unknown): boolean {
  return (
    isObject(value) &&
    isText(value.iss) &&
    isText(value.sub) &&
    isText(value.aud) &&
    isNumericDate(value.iat) &&
    isNumericDate(value.nbf) &&
    isNumericDate(value.exp) &&
    isIdentifier(value.jti) &&
    isText(value.tenant) &&
    isText(value.tool) &&
    isText(value.resource) &&
    isIdentifier(value.actionId) &&
    isSha256(value.actionHash) &&
    isSha256(value.payloadHash) &&
    isSha256(value.policyHash) &&
    isCount(value.decisionSeq) &&
    (value.approvalId === undefined || isIdentifier(value.approvalId))
  );
}
