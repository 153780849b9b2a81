import * as z from 'zod';
import { isSha256Text, SHA256_PATTERN } from './canonical.js';
import { isCatalogueData } from './catalogue-guard.js';
import { EVENT_TYPES, type EventType } from './event-types.js';
import { numericDateSchema } from './numeric-date.js';
import { isRfc3339MillisUtc } from './rfc3339.js';

/**
 * The event catalogue of DESIGN.md section 5: one zod schema per ledger record type, joined in a
 * discriminated union on `type`. The record envelope is strict; event data is loose because the
 * design lets data fields grow, and a newer writer must not make an older verifier reject a valid
 * chain. Reducers read only the fields named here.
 */

export const LEDGER_FORMAT = 'svc.ledger.v0';

const ACTION_SOURCES = ['proxy', 'sdk', 'hook', 'mcp', 'playground'] as const;
export type ActionSource = (typeof ACTION_SOURCES)[number];

/**
 * The data schemas, one per record type, built on first use: hot paths check records with the
 * hand-written rules of catalogue-guard.ts and reach zod only to word a problem, so a process
 * that checks none (a hook) does not pay for building some two hundred schemas as it starts.
 */
function buildEventDataSchemas() {
  const sha256 = z.string().regex(SHA256_PATTERN, 'expected sha256:<64 lowercase hex>');
  const identifier = z.string().regex(/^[A-Za-z0-9._:@\/+-]{1,200}$/, 'expected an identifier of 1-200 safe characters');
  const base64Of32Bytes = z.string().regex(/^[A-Za-z0-9+/]{43}=$/, 'expected base64 of 32 bytes');
  const reasonCode = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'expected a snake_case reason code');
  const text = z.string().max(16_384);

  const publicKeyEntrySchema = z.strictObject({
    name: z.string().regex(/^[^\s+]{1,200}$/, 'a key name has no whitespace or "+"'),
    alg: z.literal('Ed25519'),
    publicKey: base64Of32Bytes,
  });

  const actionSourceSchema = z.enum(ACTION_SOURCES);

  /** The fields of a normalized action (SPEC.md 2.1) that reducers and forensics read. */
  const recordedActionSchema = z.looseObject({
    schemaVersion: z.literal('svc.action.v0'),
    actor: z.looseObject({ agentId: text, humanOwner: text.optional(), runtime: text.optional(), tenant: text }),
    intent: z.looseObject({ taskId: text, declaredGoal: text.optional() }),
    capability: z.looseObject({ tool: text, resource: text, payload: z.record(z.string(), z.unknown()) }),
  });

  const actionPassClaimsSchema = z.looseObject({
    iss: text,
    sub: text,
    aud: text,
    iat: numericDateSchema,
    nbf: numericDateSchema,
    exp: numericDateSchema,
    jti: identifier,
    tenant: text,
    tool: text,
    resource: text,
    actionId: identifier,
    actionHash: sha256,
    payloadHash: sha256,
    policyHash: sha256,
    decisionSeq: z.number().int().nonnegative(),
    approvalId: identifier.optional(),
  });

  return {
    'ledger.genesis': z.looseObject({
      origin: z.string().regex(/^[^\s]{1,200}$/, 'an origin has no whitespace'),
      format: z.literal(LEDGER_FORMAT),
      keys: z.array(publicKeyEntrySchema).min(1).max(16),
    }),
    'ledger.checkpoint': z.looseObject({
      size: z.number().int().nonnegative(),
      root: base64Of32Bytes,
      note: z.string().max(65_536),
    }),
    'ledger.recovered': z.looseObject({
      truncatedBytes: z.number().int().nonnegative(),
      quarantineFile: text,
      reason: text,
    }),
    'config.loaded': z.looseObject({ configHash: sha256, policyHash: sha256 }),
    'action.received': z.looseObject({
      actionId: identifier,
      source: actionSourceSchema,
      action: recordedActionSchema,
      actionHash: sha256,
      payloadHash: sha256,
    }),
    'policy.decided': z.looseObject({
      actionId: identifier,
      decision: z.enum(['allow', 'deny', 'step_up', 'no_opinion']),
      reasons: z.array(reasonCode).max(64),
      ruleId: text,
      policyHash: sha256,
    }),
    'actionpass.issued': z.looseObject({
      actionId: identifier,
      passId: identifier,
      claims: actionPassClaimsSchema,
      token: z.string().max(16_384),
    }),
    'approval.requested': z.looseObject({
      actionId: identifier,
      approvalId: identifier,
      actionHash: sha256,
      payloadHash: sha256,
      hosted: z.boolean(),
    }),
    'approval.granted': z.looseObject({
      actionId: identifier,
      approvalId: identifier,
      approvedBy: text,
      approvedPayloadHash: sha256,
      artifact: z.string().max(16_384),
    }),
    'approval.rejected': z.looseObject({
      actionId: identifier,
      approvalId: identifier,
      rejectedBy: text,
      reason: text,
    }),
    'execution.blocked': z.looseObject({
      actionId: identifier,
      reason: reasonCode,
      approvedPayloadHash: sha256,
      executedPayloadHash: sha256,
    }),
    'execution.completed': z.looseObject({
      actionId: identifier,
      passId: identifier,
      approvedPayloadHash: sha256,
      executedPayloadHash: sha256,
      outcome: z.enum(['succeeded', 'failed']),
      resultHash: sha256,
    }),
    'mcp.tool.pinned': z.looseObject({ server: identifier, tool: text, definitionHash: sha256 }),
    'mcp.tool.changed': z.looseObject({ server: identifier, tool: text, pinnedHash: sha256, presentedHash: sha256 }),
  } as const satisfies Record<EventType, z.ZodType>;
}

type EventDataSchemas = ReturnType<typeof buildEventDataSchemas>;
let builtEventDataSchemas: EventDataSchemas | undefined;

function eventDataSchemas(): EventDataSchemas {
  builtEventDataSchemas ??= buildEventDataSchemas();
  return builtEventDataSchemas;
}

export { EVENT_TYPES, type EventType };

const STREAM_TEXT = /^(ledger|config|(action|mcp):[A-Za-z0-9._:@\/+-]{1,200})$/;
export type EventData<T extends EventType> = z.infer<EventDataSchemas[T]>;

const EVENT_TYPE_SET: ReadonlySet<string> = new Set(EVENT_TYPES);

function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && EVENT_TYPE_SET.has(value);
}

function recordSchema<T extends EventType>(type: T) {
  return z.strictObject({
    v: z.literal(0),
    seq: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
    ts: z.string().refine(isRfc3339MillisUtc, 'expected RFC 3339 UTC with milliseconds'),
    stream: z.string().regex(STREAM_TEXT, 'expected ledger, config, action:<id> or mcp:<name>'),
    prevHash: z.string().regex(SHA256_PATTERN, 'expected sha256:<64 lowercase hex>'),
    type: z.literal(type),
    data: eventDataSchemas()[type] as EventDataSchemas[T],
  });
}

/**
 * The whole record catalogue as one declarative zod schema: the statement of the rules that
 * `checkRecord` implements faster, which tests and the reference verifier hold it to. Built on
 * first call, as nothing in svc itself validates with it.
 */
export function ledgerRecordSchema(): z.ZodDiscriminatedUnion<RecordSchemas> {
  builtRecordSchema ??= z.discriminatedUnion('type', EVENT_TYPES.map((type) => recordSchema(type)) as unknown as RecordSchemas);
  return builtRecordSchema;
}

type RecordSchemas = [ReturnType<typeof recordSchema<'ledger.genesis'>>, ...ReturnType<typeof recordSchema<EventType>>[]];
let builtRecordSchema: z.ZodDiscriminatedUnion<RecordSchemas> | undefined;

/** One ledger line, parsed. */
export type LedgerRecord = { [T in EventType]: { v: 0; seq: number; ts: string; stream: string; prevHash: string; type: T; data: EventData<T> } }[EventType];

export type RecordOf<T extends EventType> = Extract<LedgerRecord, { type: T }>;

/** What a caller appends: the writer adds v, seq, ts and prevHash when it seals the record. */
export type LedgerEvent = { [T in EventType]: { type: T; stream: string; data: EventData<T> } }[EventType];

export type EventOf<T extends EventType> = Extract<LedgerEvent, { type: T }>;

/** The action a record belongs to, for the record types that carry one. */
export function actionIdOf(event: Pick<LedgerEvent, 'data'>): string | undefined {
  const actionId = (event.data as { actionId?: unknown }).actionId;
  return typeof actionId === 'string' ? actionId : undefined;
}

/** Records of one action must sit in that action's stream, so per-action replay cannot be fooled. */
export function expectedStream(event: LedgerEvent): string {
  switch (event.type) {
    case 'ledger.genesis':
    case 'ledger.checkpoint':
    case 'ledger.recovered':
      return 'ledger';
    case 'config.loaded':
      return 'config';
    case 'mcp.tool.pinned':
    case 'mcp.tool.changed':
      return `mcp:${event.data.server}`;
    default:
      return `action:${event.data.actionId}`;
  }
}

export type RecordCheck = { ok: true; record: LedgerRecord } | { ok: false; message: string };

const ENVELOPE_KEYS = 7;

/**
 * Validates a parsed record against the catalogue, naming the first offending path.
 *
 * The envelope is checked by hand and the data by its type's schema alone: validating against
 * the whole discriminated union costs several microseconds per record, and verification checks
 * millions. `ledgerRecordSchema` stays the declarative statement of the same rules; a test holds
 * the two to the same verdicts.
 */
export function checkRecord(value: unknown): RecordCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, message: 'record: expected an object' };
  const record = value as Record<string, unknown>;
  const envelopeProblem = checkEnvelope(record);
  if (envelopeProblem) return { ok: false, message: envelopeProblem };
  const type = record.type as EventType;
  const data = eventDataSchemas()[type].safeParse(record.data);
  if (!data.success) return { ok: false, message: describeIssue(data.error.issues[0], ['data']) };
  const checked = { ...record, data: data.data } as LedgerRecord;
  const stream = expectedStream(checked);
  if (stream !== checked.stream) return { ok: false, message: `stream: ${checked.type} belongs in stream ${stream}, found ${checked.stream}` };
  return { ok: true, record: checked };
}

/**
 * The verdict and message of `checkRecord`, for readers that only need the verdict (verification):
 * an accepted record comes back as given, the caller's JSON.parse result, instead of as zod's
 * copy (same values; keys in the line's order rather than the schema's). Valid records skip zod:
 * the hand-written rules accept only what it accepts, and everything else goes through
 * `checkRecord`, which decides and words the problem.
 */
export function checkParsedRecord(value: unknown): RecordCheck {
  return checkParsedRecordWith(value, true);
}

/**
 * `checkParsedRecord` that leaves the form of `prevHash` (sha256: and 64 lowercase hex digits)
 * unchecked on a record it accepts, for verification's replay thread when the chain thread checks
 * it on the same line (ChainChecker.checkDeferringRecord): that thread accepts no line whose
 * prevHash is not exactly the previous record's hash, and runs the whole record check itself
 * (prevHash form included, with the same message) on any line whose prevHash is not of that form.
 * A record it refuses is still worded by `checkRecord`, prevHash included.
 */
export function checkParsedRecordButPrevHash(value: unknown): RecordCheck {
  return checkParsedRecordWith(value, false);
}

function checkParsedRecordWith(value: unknown, prevHashForm: boolean): RecordCheck {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    if (checkEnvelope(record, false, prevHashForm) === undefined && isCatalogueData(record.type as EventType, record.data)) {
      const accepted = record as LedgerRecord;
      // This equality stands in for the stream's pattern, skipped above: the stream of data the
      // catalogue accepts is `ledger`, `config`, or `action:`/`mcp:` and an identifier the
      // catalogue has checked with the pattern's own character class, all of which it accepts.
      if (isExpectedStream(accepted)) return { ok: true, record: accepted };
    }
  }
  return checkRecord(value);
}

/**
 * `expectedStream(record) === record.stream`, without building the expected string: a template
 * literal makes a rope that the comparison first copies flat, for every record verified. It
 * answers true only where that equality holds (the id a string, the stream its prefix and the id).
 */
function isExpectedStream(record: LedgerRecord): boolean {
  const stream: unknown = record.stream;
  if (typeof stream !== 'string') return false;
  switch (record.type) {
    case 'ledger.genesis':
    case 'ledger.checkpoint':
    case 'ledger.recovered':
      return stream === 'ledger';
    case 'config.loaded':
      return stream === 'config';
    case 'mcp.tool.pinned':
    case 'mcp.tool.changed':
      return isPrefixedId(stream, 'mcp:', record.data.server);
    default:
      return isPrefixedId(stream, 'action:', record.data.actionId);
  }
}

/** Whether `stream` is exactly `prefix` followed by `id`. */
function isPrefixedId(stream: string, prefix: string, id: unknown): boolean {
  return typeof id === 'string' && stream.length === prefix.length + id.length && stream.startsWith(prefix) && stream.endsWith(id);
}

/** `streamPattern` false leaves the stream's form unchecked, for a caller that checks it another way. */
function checkEnvelope(record: Record<string, unknown>, streamPattern = true, prevHashForm = true): string | undefined {
  let keys = 0;
  for (const key in record) {
    keys += 1;
    if (!(key === 'data' || key === 'prevHash' || key === 'seq' || key === 'stream' || key === 'ts' || key === 'type' || key === 'v')) return `record: unknown key ${key}`;
  }
  if (keys !== ENVELOPE_KEYS) return 'record: expected exactly data, prevHash, seq, stream, ts, type and v';
  if (record.v !== 0) return 'v: expected 0';
  const seq = record.seq;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) return 'seq: expected a non-negative integer';
  if (typeof record.ts !== 'string' || !isRfc3339MillisUtc(record.ts)) return 'ts: expected RFC 3339 UTC with milliseconds';
  if (streamPattern && (typeof record.stream !== 'string' || !STREAM_TEXT.test(record.stream))) return 'stream: expected ledger, config, action:<id> or mcp:<name>';
  if (typeof record.prevHash !== 'string' || (prevHashForm && !isSha256Text(record.prevHash))) return 'prevHash: expected sha256:<64 lowercase hex>';
  if (!isEventType(record.type)) return `type: unknown record type ${String(record.type)}`;
  return undefined;
}

function describeIssue(issue: { path: PropertyKey[]; message: string } | undefined, prefix: string[]): string {
  const path = [...prefix, ...(issue?.path.map(String) ?? [])].join('.');
  return `${path}: ${issue?.message ?? 'invalid'}`;
}

/**
 * The first own enumerable key other than type, stream and data, in Object.keys order: what
 * `Object.keys(rest)[0]` of `{ type, stream, data, ...rest }` named, without the rest object,
 * which V8 builds by copying the event's properties one by one for every append.
 */
function extraEventKey(value: object): string | undefined {
  for (const key in value) {
    if (key !== 'type' && key !== 'stream' && key !== 'data' && Object.hasOwn(value, key)) return key;
  }
  return undefined;
}

/** Validates an event before it is sealed, so a bad event never reaches the file. */
export function checkEvent(value: unknown): { ok: true; event: LedgerEvent } | { ok: false; message: string } {
  if (typeof value !== 'object' || value === null) return { ok: false, message: 'event: expected an object' };
  const { type, stream, data } = value as Record<string, unknown>;
  const extra = extraEventKey(value);
  if (extra !== undefined) return { ok: false, message: `event: unknown key ${extra}` };
  if (!isEventType(type)) return { ok: false, message: `type: unknown record type ${String(type)}` };
  // As in checkParsedRecord: data the hand-written rules accept skips zod's copy, loose objects keep every key anyway.
  if (isCatalogueData(type, data) && stream === expectedStream(value as LedgerEvent)) return { ok: true, event: value as LedgerEvent };
  const parsed = eventDataSchemas()[type].safeParse(data);
  if (!parsed.success) return { ok: false, message: describeIssue(parsed.error.issues[0], ['data']) };
  const event = { type, stream, data: parsed.data } as LedgerEvent;
  const expected = expectedStream(event);
  if (stream !== expected) return { ok: false, message: `stream: ${type} belongs in stream ${expected}, found ${String(stream)}` };
  return { ok: true, event };
}
