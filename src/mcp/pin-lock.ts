/**
 * The MCP pin lock, `svc.mcp.lock` (docs/mcp.md, "Lock format"): one signed entry per pinned tool,
 * committed beside svc.yml so a change of a tool's definition shows up in review.
 *
 *   { "format": "svc.mcp.lock.v0",
 *     "pins": [ { "server", "tool", "definitionHash": "sha256:…", "definition": {…},
 *                 "method": "first_use" | "approved", "pinnedBy", "pinnedAt": "<RFC 3339 UTC ms>",
 *                 "keyName", "signature": "<base64 Ed25519>" } ] }
 *
 * The signature covers `JCS({ definitionHash, keyName, method, pinnedAt, pinnedBy, server, tool,
 * type: "svc.mcp.pin.v0" })` and verifies offline with the public key trust.json lists for
 * `keyName` under role `mcp-pin`. The stored definition must hash to `definitionHash`. Any entry
 * that fails either check makes the whole lock unusable (fail closed): a lock is trusted whole or
 * not at all, since a dropped or altered entry is invisible otherwise.
 *
 * Error codes: mcp_lock_invalid (not a lock), mcp_lock_io, mcp_lock_locked.
 */
import { statSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import * as z from 'zod';
import { decodeBase64Strict, sign, verifySignature, type SigningKey } from '../actionpass/keys.js';
import { isTrustTimestamp, type TrustIndex } from '../actionpass/trust-store.js';
import { mcpServerNameSchema } from '../config/mcp-schema.js';
import { canonicalJson, SHA256_PATTERN, type Sha256 } from '../events/canonical.js';
import { SvcError } from '../errors.js';
import { replaceFileDurably } from '../fs/durable-file.js';
import { definitionHash, type ToolDefinition } from './tool-definition.js';

export const PIN_LOCK_FORMAT = 'svc.mcp.lock.v0';
export const PIN_STATEMENT_TYPE = 'svc.mcp.pin.v0';
/** A lock lists a few hundred tools; a file this large is not one. */
const MAX_LOCK_BYTES = 32 * 1024 * 1024;

export type PinMethod = 'first_use' | 'approved';

export interface PinEntry {
  server: string;
  tool: string;
  definitionHash: Sha256;
  definition: ToolDefinition;
  method: PinMethod;
  /** Who accepted the definition: `user:<email>` given to `svc mcp pins approve --as`, else `os:<login>`. */
  pinnedBy: string;
  pinnedAt: string;
  keyName: string;
  signature: string;
}

export interface PinLock {
  format: typeof PIN_LOCK_FORMAT;
  pins: PinEntry[];
}

export type PinProblemCode = 'mcp_pin_key_untrusted' | 'mcp_pin_signature_invalid' | 'mcp_pin_definition_mismatch' | 'mcp_pin_duplicate';

export interface PinProblem {
  index: number;
  server: string;
  tool: string;
  code: PinProblemCode;
  message: string;
}

const definitionSchema = z.looseObject({ name: z.string().min(1).max(1024) });

const entrySchema = z.strictObject({
  server: mcpServerNameSchema,
  tool: z.string().min(1).max(1024),
  definitionHash: z.string().regex(SHA256_PATTERN, 'expected sha256:<64 lowercase hex>'),
  definition: definitionSchema,
  method: z.enum(['first_use', 'approved']),
  pinnedBy: z.string().min(1).max(300),
  pinnedAt: z.string().refine(isTrustTimestamp, 'expected an RFC 3339 UTC time with milliseconds'),
  keyName: z.string().min(1).max(300),
  signature: z.string().refine((text) => decodeBase64Strict(text)?.length === 64, 'expected standard base64 of a 64-byte Ed25519 signature'),
});

const lockSchema = z.strictObject({ format: z.literal(PIN_LOCK_FORMAT), pins: z.array(entrySchema).max(100_000) });

export function emptyPinLock(): PinLock {
  return { format: PIN_LOCK_FORMAT, pins: [] };
}

/** The bytes an entry's signature covers. */
export function pinStatement(entry: Omit<PinEntry, 'definition' | 'signature'>): Buffer {
  return Buffer.from(
    canonicalJson({
      definitionHash: entry.definitionHash,
      keyName: entry.keyName,
      method: entry.method,
      pinnedAt: entry.pinnedAt,
      pinnedBy: entry.pinnedBy,
      server: entry.server,
      tool: entry.tool,
      type: PIN_STATEMENT_TYPE,
    }),
    'utf8',
  );
}

export function signPin(key: SigningKey, fields: { server: string; definition: ToolDefinition; method: PinMethod; pinnedBy: string; pinnedAt: string }): PinEntry {
  const unsigned = { server: fields.server, tool: fields.definition.name, definitionHash: definitionHash(fields.definition), method: fields.method, pinnedBy: fields.pinnedBy, pinnedAt: fields.pinnedAt, keyName: key.name };
  return { ...unsigned, definition: fields.definition, signature: sign(key, pinStatement(unsigned)).toString('base64') };
}

/** Validates the shape of a parsed lock; `file` only names the source in the error. */
export function parsePinLock(json: unknown, file: string): PinLock {
  const parsed = lockSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(top level)'}: ${issue.message}`);
    throw new SvcError('mcp_lock_invalid', `${file} is not a valid MCP pin lock: ${issues.join('; ')}; restore it from version control or run svc mcp pins reset`);
  }
  return { format: PIN_LOCK_FORMAT, pins: parsed.data.pins.map((entry) => ({ ...entry, definitionHash: entry.definitionHash as Sha256, definition: entry.definition as ToolDefinition })) };
}

/**
 * Every reason the lock cannot be trusted, entry by entry: a signer trust.json does not list as
 * an unrevoked mcp-pin key, a signature that does not verify, a definition that does not hash to
 * its pin, a tool pinned twice. Empty when every entry holds. Pure.
 */
export function checkPinLock(lock: PinLock, trust: TrustIndex): PinProblem[] {
  const problems: PinProblem[] = [];
  const seen = new Set<string>();
  lock.pins.forEach((entry, index) => {
    const where = { index, server: entry.server, tool: entry.tool };
    const key = `${entry.server}\0${entry.tool}`;
    if (seen.has(key)) problems.push({ ...where, code: 'mcp_pin_duplicate', message: `${entry.server}/${entry.tool} is pinned twice` });
    seen.add(key);
    const resolved = trust.resolve(entry.keyName, 'mcp-pin');
    if (!resolved.ok) {
      problems.push({ ...where, code: 'mcp_pin_key_untrusted', message: `signed by a key this workspace does not trust: ${resolved.message}` });
      return;
    }
    const signature = decodeBase64Strict(entry.signature) ?? Buffer.alloc(0);
    if (!verifySignature(resolved.key.publicKey, pinStatement(entry), signature)) {
      problems.push({ ...where, code: 'mcp_pin_signature_invalid', message: `the signature of ${entry.keyName} does not verify: the entry was changed after it was signed` });
      return;
    }
    let actual: string;
    try {
      actual = definitionHash(entry.definition);
    } catch {
      actual = 'none (no canonical JSON form)';
    }
    if (actual !== entry.definitionHash) {
      problems.push({ ...where, code: 'mcp_pin_definition_mismatch', message: `the stored definition hashes to ${actual}, not to the pinned ${entry.definitionHash}` });
    }
  });
  return problems;
}

export function serializePinLock(lock: PinLock): string {
  const pins = [...lock.pins].sort((a, b) => (a.server === b.server ? compare(a.tool, b.tool) : compare(a.server, b.server)));
  return `${JSON.stringify({ format: PIN_LOCK_FORMAT, pins }, null, 2)}\n`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Identifies one version of the file: a change of any of these means it must be read again. */
export interface LockVersion {
  exists: boolean;
  size: number;
  mtimeMs: number;
  ino: number;
}

/** Synchronous on purpose: it runs before every call, and a stat costs less than a thread-pool round trip. */
export function lockVersion(file: string): LockVersion {
  try {
    const stats = statSync(file);
    return { exists: true, size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { exists: false, size: 0, mtimeMs: 0, ino: 0 };
    throw new SvcError('mcp_lock_io', `cannot stat ${file}: ${(error as Error).message}`, { cause: error });
  }
}

export function sameVersion(a: LockVersion, b: LockVersion): boolean {
  return a.exists === b.exists && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
}

/** Reads the lock; a missing file is an empty lock (nothing pinned yet). Throws mcp_lock_invalid for anything that is not a lock. */
export async function readPinLock(file: string): Promise<PinLock> {
  let raw: Buffer;
  try {
    raw = await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyPinLock();
    throw new SvcError('mcp_lock_io', `cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  if (raw.length > MAX_LOCK_BYTES) throw new SvcError('mcp_lock_invalid', `${file} is larger than ${MAX_LOCK_BYTES} bytes; it is not an MCP pin lock`);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
  } catch (error) {
    const detail = error instanceof SyntaxError ? error.message : 'not UTF-8';
    throw new SvcError('mcp_lock_invalid', `${file} is not a valid MCP pin lock: not JSON (${detail}); restore it from version control or run svc mcp pins reset`);
  }
  return parsePinLock(json, file);
}

/** Replaces the lock atomically and durably (temp file, fsync, rename, fsync of the directory). */
async function writePinLock(file: string, lock: PinLock): Promise<void> {
  try {
    await replaceFileDurably(file, serializePinLock(lock), 0o644);
  } catch (error) {
    throw new SvcError('mcp_lock_io', `cannot write ${file}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Read-modify-write of the lock under `<file>.write-lock`, so two wrappers pinning at once (two
 * servers of one agent) cannot lose each other's entries. `change` returns the lock to write, or
 * undefined to leave the file as it is.
 */
export async function updatePinLock<T>(file: string, change: (current: PinLock) => Promise<{ next?: PinLock; result: T }> | { next?: PinLock; result: T }): Promise<T> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true }).catch(() => undefined);
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(file, {
      realpath: false,
      lockfilePath: `${file}.write-lock`,
      stale: 10_000,
      retries: { retries: 60, factor: 1.3, minTimeout: 10, maxTimeout: 250, randomize: true },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw new SvcError('mcp_lock_locked', `${file} is being changed by another svc process (lock ${file}.write-lock); try again`);
    throw new SvcError('mcp_lock_io', `cannot lock ${file}: ${(error as Error).message}`, { cause: error });
  }
  try {
    const { next, result } = await change(await readPinLock(file));
    if (next !== undefined) await writePinLock(file, next);
    return result;
  } finally {
    await release().catch(() => undefined);
  }
}
