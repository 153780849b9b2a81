/**
 * The trust store, `.svc/trust.json` (DESIGN.md section 6, "Keys"): the public keys svc accepts
 * signatures from, what each may sign, and when a key was revoked.
 *
 *   { "version": 0, "keys": [ { "name", "alg": "Ed25519", "publicKey": "<base64 32 bytes>",
 *                               "role": "actionpass" | "reviewer" | "mcp-pin", "reviewer"?: "user:<email>",
 *                               "addedAt": "<RFC 3339 UTC ms>", "revokedAt"?: "<RFC 3339 UTC ms>" } ] }
 *
 * A key has one role: an ActionPass key cannot sign approvals and a reviewer key cannot sign
 * passes, so one public key may appear in one entry only. An `mcp-pin` key signs the entries of
 * the MCP pin lock (svc.mcp.lock, docs/mcp.md) and nothing else. A reviewer key names the identity it
 * approves as. The file holds no secret (mode 0644); private keys live in key files.
 *
 * Error codes: trust_store_invalid, trust_store_io, trust_store_locked.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import * as z from 'zod';
import { SvcError } from '../errors.js';
import { replaceFileDurably } from '../fs/durable-file.js';
import { decodeBase64Strict, ED25519_PUBLIC_KEY_LENGTH, isValidKeyName } from './keys.js';

export const TRUST_STORE_VERSION = 0;

export type TrustRole = 'actionpass' | 'reviewer' | 'mcp-pin';

export interface TrustedKeyEntry {
  name: string;
  alg: 'Ed25519';
  /** Standard base64 of the 32 raw public key bytes. */
  publicKey: string;
  role: TrustRole;
  /** For role reviewer only: the `user:<email>` this key approves as. */
  reviewer?: string;
  addedAt: string;
  revokedAt?: string;
}

export interface TrustStore {
  version: 0;
  keys: TrustedKeyEntry[];
}

/** `user:<email>`. No `+`-free rule here: key names encode it, identities keep it. */
export const REVIEWER_IDENTITY_PATTERN = /^user:[^\s@<>"\p{Cc}]{1,128}@[^\s@<>"\p{Cc}]{1,253}$/u;

export function isReviewerIdentity(value: unknown): value is string {
  return typeof value === 'string' && REVIEWER_IDENTITY_PATTERN.test(value);
}

/** `2026-11-21T10:00:00.000Z`: fixed width, so timestamps order as strings. */
const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function isTrustTimestamp(value: unknown): value is string {
  if (typeof value !== 'string' || !TIMESTAMP_PATTERN.test(value)) return false;
  const time = Date.parse(value);
  return Number.isFinite(time) && new Date(time).toISOString() === value;
}

/** trust.json lists a handful of keys; a file this large is not one. */
const MAX_TRUST_STORE_BYTES = 4 * 1024 * 1024;

const timestamp = z.string().refine(isTrustTimestamp, 'expected an RFC 3339 UTC time with milliseconds, for example 2026-11-21T10:00:00.000Z');

const entrySchema = z
  .strictObject({
    name: z.string().refine(isValidKeyName, 'not a valid key name (non-empty, no spaces, no "+", no control characters)'),
    alg: z.literal('Ed25519'),
    publicKey: z
      .string()
      .refine((text) => decodeBase64Strict(text)?.length === ED25519_PUBLIC_KEY_LENGTH, 'expected standard base64 (with padding) of a 32-byte Ed25519 public key'),
    role: z.enum(['actionpass', 'reviewer', 'mcp-pin']),
    reviewer: z.string().regex(REVIEWER_IDENTITY_PATTERN, 'expected user:<email>').optional(),
    addedAt: timestamp,
    revokedAt: timestamp.optional(),
  })
  .superRefine((entry, context) => {
    if (entry.role === 'reviewer' && entry.reviewer === undefined) {
      context.addIssue({ code: 'custom', path: ['reviewer'], message: 'a reviewer key must name the user:<email> it approves as' });
    }
    if (entry.role !== 'reviewer' && entry.reviewer !== undefined) {
      context.addIssue({ code: 'custom', path: ['reviewer'], message: 'only a reviewer key names a reviewer' });
    }
  });

const storeSchema = z
  .strictObject({ version: z.literal(TRUST_STORE_VERSION), keys: z.array(entrySchema) })
  .superRefine((store, context) => {
    const names = new Map<string, number>();
    const publicKeys = new Map<string, number>();
    store.keys.forEach((entry, index) => {
      const sameName = names.get(entry.name);
      if (sameName !== undefined) context.addIssue({ code: 'custom', path: ['keys', index, 'name'], message: `key ${JSON.stringify(entry.name)} is listed twice (also at keys.${sameName})` });
      names.set(entry.name, index);
      const sameKey = publicKeys.get(entry.publicKey);
      if (sameKey !== undefined) context.addIssue({ code: 'custom', path: ['keys', index, 'publicKey'], message: `the same public key is listed twice (also at keys.${sameKey}); one key has one role` });
      publicKeys.set(entry.publicKey, index);
    });
  });

export function emptyTrustStore(): TrustStore {
  return { version: TRUST_STORE_VERSION, keys: [] };
}

/** Validates a parsed trust.json; `file` only names the source in the error. */
export function parseTrustStore(json: unknown, file: string): TrustStore {
  const parsed = storeSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(top level)'}: ${issue.message}`);
    throw new SvcError('trust_store_invalid', `${file} is not a valid trust store: ${issues.join('; ')}`);
  }
  // Rebuilt field by field so the in-memory order is the written order.
  return { version: TRUST_STORE_VERSION, keys: parsed.data.keys.map(normalizedEntry) };
}

function normalizedEntry(entry: TrustedKeyEntry): TrustedKeyEntry {
  return {
    name: entry.name,
    alg: 'Ed25519',
    publicKey: entry.publicKey,
    role: entry.role,
    ...(entry.reviewer !== undefined && { reviewer: entry.reviewer }),
    addedAt: entry.addedAt,
    ...(entry.revokedAt !== undefined && { revokedAt: entry.revokedAt }),
  };
}

function ioError(action: string, file: string, error: unknown): SvcError {
  const detail = error instanceof Error ? error.message : String(error);
  return new SvcError('trust_store_io', `cannot ${action} ${file}: ${detail}`, { cause: error });
}

/** Reads trust.json. A missing file is an empty store: nothing is trusted yet. */
export async function readTrustStore(file: string): Promise<TrustStore> {
  let raw: Buffer;
  try {
    raw = await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyTrustStore();
    throw ioError('read', file, error);
  }
  if (raw.length > MAX_TRUST_STORE_BYTES) throw new SvcError('trust_store_invalid', `${file} is not a valid trust store: larger than ${MAX_TRUST_STORE_BYTES} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
  } catch (error) {
    const detail = error instanceof SyntaxError ? error.message : 'not UTF-8';
    throw new SvcError('trust_store_invalid', `${file} is not a valid trust store: not JSON (${detail})`);
  }
  return parseTrustStore(json, file);
}


/**
 * Replaces trust.json durably and atomically: a temp file beside it, written, fsynced, renamed
 * over it, then the directory fsynced, so a crash leaves the old store or the new one, never half.
 * The store is validated first, so svc never writes a file it would refuse to read.
 */
export async function writeTrustStore(file: string, store: TrustStore): Promise<void> {
  const checked = parseTrustStore(store, file);
  const dir = path.dirname(file);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw ioError('create directory', dir, error);
  }
  try {
    await replaceFileDurably(file, `${JSON.stringify(checked, null, 2)}\n`, 0o644);
  } catch (error) {
    throw ioError('write', file, error);
  }
}

export interface TrustStoreChange<T> {
  /** The store to write, or undefined to leave the file as it is. */
  next?: TrustStore;
  result: T;
}

/**
 * Read-modify-write of trust.json under `<file>.lock`, so two `svc keys` commands (or a proxy
 * creating its first key while a person rotates) cannot lose each other's entries.
 */
export async function updateTrustStore<T>(file: string, change: (current: TrustStore) => Promise<TrustStoreChange<T>> | TrustStoreChange<T>): Promise<T> {
  const dir = path.dirname(file);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw ioError('create directory', dir, error);
  }
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(file, {
      realpath: false,
      lockfilePath: `${file}.lock`,
      stale: 10_000,
      retries: { retries: 60, factor: 1.3, minTimeout: 10, maxTimeout: 250, randomize: true },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new SvcError('trust_store_locked', `${file} is being changed by another svc process (lock ${file}.lock); try again`);
    }
    throw ioError('lock', file, error);
  }
  try {
    const { next, result } = await change(await readTrustStore(file));
    if (next !== undefined) await writeTrustStore(file, next);
    return result;
  } finally {
    await release().catch(() => undefined);
  }
}

/** The entry for `name` if it may sign as `role` now: listed with that role and not revoked. */
export function trustedKey(store: TrustStore, name: string, role: TrustRole): TrustedKeyEntry | undefined {
  const entry = store.keys.find((candidate) => candidate.name === name);
  return entry !== undefined && entry.role === role && entry.revokedAt === undefined ? entry : undefined;
}

/** A trusted public key ready for verification. */
export interface TrustedPublicKey {
  readonly name: string;
  readonly role: TrustRole;
  readonly reviewer: string | undefined;
  /** The 32 raw Ed25519 public key bytes. */
  readonly publicKey: Buffer;
}

export type KeyResolution = { ok: true; key: TrustedPublicKey } | { ok: false; message: string };

/**
 * The trust store indexed for the hot path (the proxy verifies thousands of passes a second):
 * one Map lookup by `kid`, public keys decoded once. Immutable: after a change, index the new store.
 */
export class TrustIndex {
  readonly #byName: ReadonlyMap<string, { entry: TrustedKeyEntry; key: TrustedPublicKey }>;

  private constructor(store: TrustStore) {
    const byName = new Map<string, { entry: TrustedKeyEntry; key: TrustedPublicKey }>();
    for (const entry of store.keys) {
      const publicKey = decodeBase64Strict(entry.publicKey);
      // A store that passed parseTrustStore cannot fail this; skipping keeps the index fail-closed.
      if (publicKey?.length !== ED25519_PUBLIC_KEY_LENGTH) continue;
      byName.set(entry.name, { entry: normalizedEntry(entry), key: Object.freeze({ name: entry.name, role: entry.role, reviewer: entry.reviewer, publicKey }) });
    }
    this.#byName = byName;
  }

  static of(store: TrustStore): TrustIndex {
    return new TrustIndex(store);
  }

  /** The key `name` if it may sign as `role`, else why not, in words fit for a refusal message. */
  resolve(name: string, role: TrustRole): KeyResolution {
    const found = this.#byName.get(name);
    if (found === undefined) return { ok: false, message: `key ${JSON.stringify(name)} is not in the trust store` };
    if (found.entry.revokedAt !== undefined) return { ok: false, message: `key ${JSON.stringify(name)} was revoked at ${found.entry.revokedAt}` };
    if (found.entry.role !== role) return { ok: false, message: `key ${JSON.stringify(name)} has role ${found.entry.role}, not ${role}` };
    return { ok: true, key: found.key };
  }

  /** Every entry, revoked or not, in file order. */
  entries(): TrustedKeyEntry[] {
    return [...this.#byName.values()].map(({ entry }) => ({ ...entry }));
  }
}

/** `readTrustStore` then `TrustIndex.of`: what a verifier reloads after trust.json changed. */
export async function readTrustIndex(file: string): Promise<TrustIndex> {
  return TrustIndex.of(await readTrustStore(file));
}
