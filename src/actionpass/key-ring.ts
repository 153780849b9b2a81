/**
 * Which keys sign what, and where their private halves live (DESIGN.md section 6, "Keys" and
 * "Who may approve").
 *
 * ActionPass keys: private key files in `keys.dir` (`.svc/keys`, mode 0600), public keys in
 * trust.json with role `actionpass`. The active key is the newest unrevoked one whose private key
 * file is present. Rotation adds a newer key and leaves the older ones trusted, so passes already
 * handed out keep verifying until they expire or their key is revoked.
 *
 * Reviewer keys: private key files OUTSIDE the workspace, so an agent working in the workspace
 * cannot read them by accident of a broad file permission: `$SVC_REVIEWER_KEYS_DIR`, else
 * `$XDG_CONFIG_HOME/svc/reviewer-keys`, else `~/.config/svc/reviewer-keys`. Their public keys are
 * listed in trust.json with role `reviewer` and the `user:<email>` they approve as.
 *
 * MCP pin keys: like ActionPass keys (private files in `keys.dir`, role `mcp-pin` in trust.json),
 * they sign the entries of the MCP pin lock, so a pin verifies offline from trust.json alone.
 *
 * Every change to trust.json is a locked read-modify-write (`updateTrustStore`).
 *
 * Error codes (besides those of keys.ts and trust-store.ts): key_unknown, key_mismatch,
 * reviewer_invalid, reviewer_key_missing, reviewer_keys_in_workspace, revocation_time_invalid.
 */
import { randomBytes } from 'node:crypto';
import { lstat } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { SvcError } from '../errors.js';
import { generateSigningKey, keyFileName, publicKeyInfo, readKeyFile, writeKeyFile, type SigningKey } from './keys.js';
import {
  isReviewerIdentity,
  isTrustTimestamp,
  readTrustStore,
  TrustIndex,
  updateTrustStore,
  type TrustedKeyEntry,
  type TrustStore,
} from './trust-store.js';

export interface PassKeyOptions {
  /** Directory of private key files, `keys.dir` of svc.yml. */
  keysDir: string;
  /** `keys.trust` of svc.yml. */
  trustFile: string;
  /** The configured tenant, `org:<name>`; part of new key names. */
  tenant: string;
  /** Clock for key names and `addedAt`; tests pin it. */
  now?: () => Date;
}

export interface PassSigner {
  /** The active ActionPass key. */
  key: SigningKey;
  /** The trust store as it is after this call, indexed for verification. */
  trust: TrustIndex;
  /** Whether this call generated the key. */
  created: boolean;
}

export interface ReviewerKeyOptions {
  /** Overrides the reviewer key directory (default: `reviewerKeysDir()`). */
  keysDir?: string;
  now?: () => Date;
}

const PASS_KEY_ISSUER = 'svc.local';
/** Attempts at a fresh 4-hex-digit suffix before giving up; a clash needs 65,536 keys a day. */
const NAME_ATTEMPTS = 16;

// ---------------------------------------------------------------------------------------------
// Names and places

function suffix(): string {
  return randomBytes(2).toString('hex');
}

/** `svc.local/<tenant>/pass-<yyyymmdd>-<4 hex>`, the date in UTC. */
export function passKeyName(tenant: string, date: Date, hex = suffix()): string {
  const day = date.toISOString().slice(0, 10).replaceAll('-', '');
  return `${PASS_KEY_ISSUER}/${tenant}/pass-${day}-${hex}`;
}

/**
 * `reviewer/<user:email>/<4 hex>`. A key name may not contain `+` (C2SP note rule) while an email
 * may, so `%` and `+` are percent-encoded in the name; the identity itself is kept verbatim in
 * trust.json's `reviewer` field, which is what verification compares.
 */
export function reviewerKeyName(reviewer: string, hex = suffix()): string {
  return `reviewer/${reviewer.replaceAll('%', '%25').replaceAll('+', '%2B')}/${hex}`;
}

/** Where reviewer private keys live: never inside a workspace an agent works in. */
export function reviewerKeysDir(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.SVC_REVIEWER_KEYS_DIR;
  if (explicit !== undefined && explicit !== '') return path.resolve(explicit);
  const xdg = env.XDG_CONFIG_HOME;
  // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  if (xdg !== undefined && path.isAbsolute(xdg)) return path.join(xdg, 'svc', 'reviewer-keys');
  return path.join(homedir(), '.config', 'svc', 'reviewer-keys');
}

function isWithin(child: string, parent: string): boolean {
  const relative = path.relative(path.resolve(parent), path.resolve(child));
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function nowIso(now: () => Date): string {
  return now().toISOString();
}

// ---------------------------------------------------------------------------------------------
// Finding keys

/** Newest first by `addedAt`; of equal times, the later entry in the file. */
function newestFirst(entries: TrustedKeyEntry[]): TrustedKeyEntry[] {
  return entries
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => (a.entry.addedAt === b.entry.addedAt ? b.index - a.index : a.entry.addedAt < b.entry.addedAt ? 1 : -1))
    .map(({ entry }) => entry);
}

/** Unrevoked ActionPass keys, the one that should sign first. */
export function passKeyCandidates(store: TrustStore): TrustedKeyEntry[] {
  return newestFirst(store.keys.filter((entry) => entry.role === 'actionpass' && entry.revokedAt === undefined));
}

/** Unrevoked reviewer keys of `reviewer`, newest first. */
export function reviewerKeyCandidates(store: TrustStore, reviewer: string): TrustedKeyEntry[] {
  return newestFirst(store.keys.filter((entry) => entry.role === 'reviewer' && entry.reviewer === reviewer && entry.revokedAt === undefined));
}

/** Whether `<dir>` holds a file for key `name` (presence only; reading it checks the rest). */
export async function privateKeyPresent(dir: string, name: string): Promise<boolean> {
  try {
    await lstat(path.join(dir, keyFileName(name)));
    return true;
  } catch {
    return false;
  }
}

/**
 * The private key for a trusted entry, or undefined when its file is absent. A file that holds a
 * different key than trust.json lists is an error, never skipped: it means one of them was
 * replaced, and signing with it would produce tokens nobody can verify.
 */
async function readTrustedPrivateKey(dir: string, entry: TrustedKeyEntry): Promise<SigningKey | undefined> {
  const file = path.join(dir, keyFileName(entry.name));
  let key: SigningKey;
  try {
    key = await readKeyFile(file);
  } catch (error) {
    if (error instanceof SvcError && error.code === 'key_file_missing') return undefined;
    throw error;
  }
  if (key.name !== entry.name || publicKeyInfo(key).publicKey !== entry.publicKey) {
    throw new SvcError('key_mismatch', `key file ${file} does not hold the key trust.json lists as ${JSON.stringify(entry.name)}; restore the right file or revoke that key`);
  }
  return key;
}

async function firstUsable(dir: string, candidates: TrustedKeyEntry[]): Promise<SigningKey | undefined> {
  for (const entry of candidates) {
    const key = await readTrustedPrivateKey(dir, entry);
    if (key !== undefined) return key;
  }
  return undefined;
}

/**
 * Generates a key under a fresh name (`makeName` is called again on a clash with trust.json or
 * with an existing key file) and writes its private half to `dir`.
 */
async function createKey(dir: string, store: TrustStore, makeName: () => string): Promise<SigningKey> {
  const taken = new Set(store.keys.map((entry) => entry.name));
  for (let attempt = 0; attempt < NAME_ATTEMPTS; attempt += 1) {
    const name = makeName();
    if (taken.has(name)) continue;
    const key = generateSigningKey(name);
    try {
      await writeKeyFile(dir, key);
      return key;
    } catch (error) {
      if (error instanceof SvcError && error.code === 'key_file_exists') continue;
      throw error;
    }
  }
  throw new SvcError('key_file_exists', `could not find an unused key name in ${dir} after ${NAME_ATTEMPTS} attempts`);
}

// ---------------------------------------------------------------------------------------------
// ActionPass keys

/**
 * The active ActionPass key: the newest unrevoked role-actionpass key in trust.json whose private
 * key file is in `keysDir`. When there is none, one is generated, written (0600) and listed.
 */
export async function loadPassSigner(options: PassKeyOptions): Promise<PassSigner> {
  const store = await readTrustStore(options.trustFile);
  const existing = await firstUsable(options.keysDir, passKeyCandidates(store));
  if (existing !== undefined) return { key: existing, trust: TrustIndex.of(store), created: false };
  // Slow path under the lock: another process may have created one since we read.
  return updateTrustStore(options.trustFile, async (current) => {
    const raced = await firstUsable(options.keysDir, passKeyCandidates(current));
    if (raced !== undefined) return { result: { key: raced, trust: TrustIndex.of(current), created: false } };
    return addPassKey(options, current);
  });
}

/**
 * Makes a new ActionPass key the active one. Older keys stay trusted for verification (passes
 * they signed keep verifying until they expire) until `revokeKey` revokes them.
 */
export async function rotatePassKey(options: PassKeyOptions): Promise<PassSigner> {
  return updateTrustStore(options.trustFile, (current) => addPassKey(options, current));
}

async function addPassKey(options: PassKeyOptions, current: TrustStore): Promise<{ next: TrustStore; result: PassSigner }> {
  const now = options.now ?? (() => new Date());
  const date = now();
  const key = await createKey(options.keysDir, current, () => passKeyName(options.tenant, date));
  // Never older than the newest pass key, so a clock that stepped back cannot leave the new key inactive.
  const newest = passKeyCandidates(current)[0]?.addedAt;
  const stamp = date.toISOString();
  const addedAt = newest !== undefined && newest > stamp ? newest : stamp;
  const next: TrustStore = { ...current, keys: [...current.keys, { ...publicKeyInfo(key), role: 'actionpass', addedAt }] };
  return { next, result: { key, trust: TrustIndex.of(next), created: true } };
}

export interface Revocation {
  entry: TrustedKeyEntry;
  /** False when the key was already revoked; its first revocation time is kept. */
  changed: boolean;
}

/** Revokes key `name` (any role) as of `nowIso`; tokens it signed stop verifying everywhere that reloads trust.json. */
export async function revokeKey(trustFile: string, name: string, nowIso: string): Promise<Revocation> {
  if (!isTrustTimestamp(nowIso)) throw new SvcError('revocation_time_invalid', `${JSON.stringify(nowIso)} is not an RFC 3339 UTC time with milliseconds`);
  return updateTrustStore<Revocation>(trustFile, (current) => {
    const index = current.keys.findIndex((entry) => entry.name === name);
    const entry = current.keys[index];
    if (entry === undefined) throw new SvcError('key_unknown', `no key named ${JSON.stringify(name)} in ${trustFile}; svc keys list shows the names`);
    if (entry.revokedAt !== undefined) return { result: { entry, changed: false } };
    const revoked: TrustedKeyEntry = { ...entry, revokedAt: nowIso };
    const keys = current.keys.slice();
    keys[index] = revoked;
    return { next: { ...current, keys }, result: { entry: revoked, changed: true } };
  });
}

// ---------------------------------------------------------------------------------------------
// MCP pin keys

/** `svc.local/<tenant>/mcp-pin-<yyyymmdd>-<4 hex>`, the date in UTC. */
export function pinKeyName(tenant: string, date: Date, hex = suffix()): string {
  const day = date.toISOString().slice(0, 10).replaceAll('-', '');
  return `${PASS_KEY_ISSUER}/${tenant}/mcp-pin-${day}-${hex}`;
}

/** Unrevoked MCP pin keys, the one that should sign first. */
export function pinKeyCandidates(store: TrustStore): TrustedKeyEntry[] {
  return newestFirst(store.keys.filter((entry) => entry.role === 'mcp-pin' && entry.revokedAt === undefined));
}

/**
 * The key that signs MCP pins: the newest unrevoked role-mcp-pin key in trust.json whose private
 * key file is in `keysDir`, generated (0600) and listed on first use like the ActionPass key.
 */
export async function loadPinKey(options: PassKeyOptions): Promise<PassSigner> {
  const store = await readTrustStore(options.trustFile);
  const existing = await firstUsable(options.keysDir, pinKeyCandidates(store));
  if (existing !== undefined) return { key: existing, trust: TrustIndex.of(store), created: false };
  return updateTrustStore<PassSigner>(options.trustFile, async (current) => {
    const raced = await firstUsable(options.keysDir, pinKeyCandidates(current));
    if (raced !== undefined) return { result: { key: raced, trust: TrustIndex.of(current), created: false } };
    const date = (options.now ?? (() => new Date()))();
    const key = await createKey(options.keysDir, current, () => pinKeyName(options.tenant, date));
    const next: TrustStore = { ...current, keys: [...current.keys, { ...publicKeyInfo(key), role: 'mcp-pin', addedAt: date.toISOString() }] };
    return { next, result: { key, trust: TrustIndex.of(next), created: true } };
  });
}

// ---------------------------------------------------------------------------------------------
// Reviewer keys

export interface AddReviewerOptions extends ReviewerKeyOptions {
  /** `user:<email>` */
  reviewer: string;
  trustFile: string;
  /** The workspace the agent works in; the reviewer key directory must lie outside it. */
  workspaceDir?: string;
}

export interface AddedReviewer {
  key: SigningKey;
  entry: TrustedKeyEntry;
  /** The private key file written. */
  file: string;
}

function assertReviewer(reviewer: string): void {
  if (!isReviewerIdentity(reviewer)) throw new SvcError('reviewer_invalid', `${JSON.stringify(reviewer)} is not a reviewer identity; expected user:<email>`);
}

/** Generates a reviewer key for `reviewer` outside the workspace and lists it in trust.json. */
export async function addReviewer(options: AddReviewerOptions): Promise<AddedReviewer> {
  assertReviewer(options.reviewer);
  const dir = options.keysDir ?? reviewerKeysDir();
  for (const inside of [options.workspaceDir, path.dirname(options.trustFile)]) {
    if (inside !== undefined && isWithin(dir, inside)) {
      throw new SvcError('reviewer_keys_in_workspace', `reviewer keys would be written to ${dir}, inside ${path.resolve(inside)}, where an agent working there could read them; set SVC_REVIEWER_KEYS_DIR to a directory outside it`);
    }
  }
  const now = options.now ?? (() => new Date());
  return updateTrustStore(options.trustFile, async (current) => {
    const key = await createKey(dir, current, () => reviewerKeyName(options.reviewer));
    const entry: TrustedKeyEntry = { ...publicKeyInfo(key), role: 'reviewer', reviewer: options.reviewer, addedAt: nowIso(now) };
    return { next: { ...current, keys: [...current.keys, entry] }, result: { key, entry, file: path.join(dir, keyFileName(key.name)) } };
  });
}

/** The newest unrevoked reviewer key of `reviewer` whose private key file is present. */
export async function loadReviewerKey(reviewer: string, trustFile: string, options: ReviewerKeyOptions = {}): Promise<SigningKey> {
  assertReviewer(reviewer);
  const dir = options.keysDir ?? reviewerKeysDir();
  const store = await readTrustStore(trustFile);
  const key = await firstUsable(dir, reviewerKeyCandidates(store, reviewer));
  if (key === undefined) {
    throw new SvcError('reviewer_key_missing', `no usable reviewer key for ${reviewer}: ${trustFile} lists none unrevoked whose private key is in ${dir}; run svc keys add-reviewer --as ${reviewer}`);
  }
  return key;
}
