/**
 * Ledger checkpoints: C2SP signed notes (c2sp.org/signed-note) whose text is a C2SP
 * tlog-checkpoint (c2sp.org/tlog-checkpoint), DESIGN.md section 4:
 *
 *   <origin>\n<size>\n<base64 root hash>\n\n— <key name> <base64(key id ‖ signature)>\n
 *
 * key id = sha256(<key name> ‖ 0x0A ‖ 0x01 ‖ public key)[:4]; the Ed25519 signature covers the
 * note text (`<origin>\n<size>\n<base64 root>\n`, plus extension lines if a foreign writer added
 * any; svc never writes them).
 *
 * Error codes: checkpoint_invalid (malformed note), checkpoint_signature_invalid (a signature by
 * a trusted key does not verify), key_untrusted (no signature by a trusted key).
 */
import { SvcError } from '../errors.js';
import {
  assertKeyName,
  decodeBase64Strict,
  ED25519_PUBLIC_KEY_LENGTH,
  ED25519_SIGNATURE_LENGTH,
  isValidKeyName,
  sign,
  verifySignature,
  type SigningKey,
} from '../actionpass/keys.js';
import { sha256Bytes } from './canonical.js';

/** Largest note accepted, in UTF-8 bytes. */
export const MAX_NOTE_BYTES = 64 * 1024;
/** Most signature lines accepted (C2SP: verifiers must accept at least 16). */
export const MAX_NOTE_SIGNATURES = 100;

/** C2SP signature type byte of Ed25519 note signatures. */
const SIGNATURE_TYPE_ED25519 = 0x01;
const SIGNATURE_PREFIX = '\u2014 '; // em dash, space
const ROOT_LENGTH = 32;

export type CheckpointSignature = {
  keyName: string;
  /** The 4-byte key id the line claims. */
  keyId: Buffer;
  /** The signature bytes after the key id (64 for Ed25519). */
  signature: Buffer;
};

export type Checkpoint = {
  origin: string;
  size: number;
  root: Buffer;
  /** Lines after the root hash, kept as written (C2SP allows them; svc never writes them). */
  extensions: string[];
  /** The signed note text, final newline included: exactly the bytes the signatures cover. */
  body: string;
  signatures: CheckpointSignature[];
};

export type TrustedNoteKey = { name: string; publicKey32: Uint8Array };

export type CheckpointVerification =
  | { ok: true; checkpoint: Checkpoint }
  | { ok: false; code: 'checkpoint_invalid' | 'checkpoint_signature_invalid' | 'key_untrusted'; message: string };

function invalid(message: string): SvcError {
  return new SvcError('checkpoint_invalid', message);
}

const CONTROL_EXCEPT_NEWLINE = /[\u0000-\u0009\u000b-\u001f]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const TREE_SIZE = /^(?:0|[1-9][0-9]*)$/;

/** The checkpoint note text: `<origin>\n<size>\n<base64 root>\n`. */
export function checkpointBody(origin: string, size: number, root32: Uint8Array): string {
  if (typeof origin !== 'string' || origin.length === 0) throw invalid('origin is empty');
  if (origin.includes('\n') || CONTROL_EXCEPT_NEWLINE.test(origin) || LONE_SURROGATE.test(origin)) {
    throw invalid('origin contains a newline, a control character or ill-formed Unicode');
  }
  if (!Number.isSafeInteger(size) || size < 0) throw invalid(`tree size ${String(size)} is not a non-negative safe integer`);
  if (!(root32 instanceof Uint8Array) || root32.length !== ROOT_LENGTH) throw invalid('root hash is not 32 bytes');
  const root = Buffer.from(root32.buffer, root32.byteOffset, root32.byteLength).toString('base64');
  return `${origin}\n${size}\n${root}\n`;
}

/** C2SP key id of an Ed25519 note key: sha256(name ‖ 0x0A ‖ 0x01 ‖ public key)[:4]. */
export function noteKeyId(keyName: string, publicKey32: Uint8Array): Buffer {
  assertKeyName(keyName);
  if (!(publicKey32 instanceof Uint8Array) || publicKey32.length !== ED25519_PUBLIC_KEY_LENGTH) {
    throw new SvcError('key_invalid', 'an Ed25519 public key is 32 bytes');
  }
  return sha256Bytes(Buffer.from(keyName, 'utf8'), Uint8Array.of(0x0a, SIGNATURE_TYPE_ED25519), publicKey32).subarray(0, 4);
}

/** The signed checkpoint note for the first `size` records with Merkle root `root32`. */
export function signCheckpoint(key: SigningKey, origin: string, size: number, root32: Uint8Array): string {
  const body = checkpointBody(origin, size, root32);
  const bodyBytes = Buffer.from(body, 'utf8');
  const signature = Buffer.concat([noteKeyId(key.name, key.publicKey), sign(key, bodyBytes)]);
  const note = `${body}\n${SIGNATURE_PREFIX}${key.name} ${signature.toString('base64')}\n`;
  if (Buffer.byteLength(note, 'utf8') > MAX_NOTE_BYTES) throw invalid(`note larger than ${MAX_NOTE_BYTES} bytes`);
  return note;
}

/**
 * Parses a signed checkpoint note strictly, without verifying any signature. Throws
 * SvcError('checkpoint_invalid') naming the first defect.
 */
export function parseCheckpoint(note: string): Checkpoint {
  if (typeof note !== 'string') throw invalid('note is not a string');
  // Every UTF-16 unit is at least one UTF-8 byte: cheap bound before measuring.
  if (note.length > MAX_NOTE_BYTES || Buffer.byteLength(note, 'utf8') > MAX_NOTE_BYTES) {
    throw invalid(`note larger than ${MAX_NOTE_BYTES} bytes`);
  }
  if (LONE_SURROGATE.test(note)) throw invalid('note is not well-formed Unicode');
  const control = CONTROL_EXCEPT_NEWLINE.exec(note);
  if (control !== null) {
    throw invalid(`note contains control character U+${control[0].charCodeAt(0).toString(16).padStart(4, '0')} at offset ${control.index}`);
  }
  if (!note.endsWith('\n')) throw invalid('note does not end with a newline');

  // The text is separated from the signatures by the last blank line.
  const split = note.lastIndexOf('\n\n');
  if (split < 0) throw invalid('no blank line between the note text and the signatures');
  const body = note.slice(0, split + 1);
  const signatureBlock = note.slice(split + 2);
  if (signatureBlock.length === 0) throw invalid('note has no signature lines');

  const signatureLines = signatureBlock.slice(0, -1).split('\n');
  if (signatureLines.length > MAX_NOTE_SIGNATURES) throw invalid(`note has more than ${MAX_NOTE_SIGNATURES} signature lines`);
  const signatures = signatureLines.map((line, index) => parseSignatureLine(line, index + 1));

  const lines = body.slice(0, -1).split('\n');
  if (lines.length < 3) throw invalid(`note text has ${lines.length} line(s); a checkpoint has origin, size and root hash`);
  const [origin = '', sizeText = '', rootText = ''] = lines;
  if (origin.length === 0) throw invalid('origin line is empty');
  if (!TREE_SIZE.test(sizeText)) throw invalid(`tree size ${JSON.stringify(sizeText)} is not a decimal number without leading zeros`);
  const size = Number(sizeText);
  if (!Number.isSafeInteger(size)) throw invalid(`tree size ${sizeText} is larger than 2^53 - 1`);
  const root = decodeBase64Strict(rootText);
  if (root === undefined) throw invalid(`root hash ${JSON.stringify(rootText)} is not standard base64 with padding`);
  if (root.length !== ROOT_LENGTH) throw invalid(`root hash is ${root.length} bytes, not 32`);
  const extensions = lines.slice(3);
  const emptyExtension = extensions.findIndex((line) => line.length === 0);
  if (emptyExtension >= 0) throw invalid(`note text line ${emptyExtension + 4} is empty`);

  return { origin, size, root, extensions, body, signatures };
}

function parseSignatureLine(line: string, number: number): CheckpointSignature {
  const where = `signature line ${number}`;
  if (!line.startsWith(SIGNATURE_PREFIX)) throw invalid(`${where} does not start with an em dash (U+2014) and a space`);
  const rest = line.slice(SIGNATURE_PREFIX.length);
  const space = rest.indexOf(' ');
  if (space < 0) throw invalid(`${where} has no space between key name and signature`);
  const keyName = rest.slice(0, space);
  const encoded = rest.slice(space + 1);
  if (!isValidKeyName(keyName)) throw invalid(`${where} has an invalid key name ${JSON.stringify(keyName)}`);
  const bytes = decodeBase64Strict(encoded);
  if (bytes === undefined || encoded.length === 0) throw invalid(`${where} signature is not standard base64 with padding`);
  if (bytes.length < 5) throw invalid(`${where} signature is shorter than a key id and one byte`);
  return { keyName, keyId: bytes.subarray(0, 4), signature: bytes.subarray(4) };
}

/**
 * Verifies a signed checkpoint against trusted keys, following C2SP signed-note: signature lines
 * whose (key name, key id) match no trusted key are ignored; every line that matches one must
 * verify, or the whole note is rejected (`checkpoint_signature_invalid`); at least one must match
 * and verify, else `key_untrusted`. Never throws.
 */
export function verifyCheckpoint(note: string, trusted: readonly TrustedNoteKey[]): CheckpointVerification {
  let checkpoint: Checkpoint;
  try {
    checkpoint = parseCheckpoint(note);
  } catch (error) {
    return { ok: false, code: 'checkpoint_invalid', message: error instanceof Error ? error.message : String(error) };
  }

  const keys: { name: string; publicKey32: Uint8Array; keyId: Buffer }[] = [];
  for (const key of Array.isArray(trusted) ? trusted : []) {
    try {
      keys.push({ name: key.name, publicKey32: key.publicKey32, keyId: noteKeyId(key.name, key.publicKey32) });
    } catch {
      // A malformed trust entry can match nothing; failing closed is the caller's result.
    }
  }

  const bodyBytes = Buffer.from(checkpoint.body, 'utf8');
  let verified = false;
  for (const line of checkpoint.signatures) {
    for (const key of keys) {
      if (key.name !== line.keyName || !key.keyId.equals(line.keyId)) continue;
      const good =
        line.signature.length === ED25519_SIGNATURE_LENGTH && verifySignature(key.publicKey32, bodyBytes, line.signature);
      if (!good) {
        return {
          ok: false,
          code: 'checkpoint_signature_invalid',
          message: `signature by trusted key ${line.keyName} (key id ${line.keyId.toString('hex')}) does not verify`,
        };
      }
      verified = true;
    }
  }
  if (!verified) {
    const names = checkpoint.signatures.map((line) => `${line.keyName} (${line.keyId.toString('hex')})`).join(', ');
    return { ok: false, code: 'key_untrusted', message: `checkpoint is not signed by a trusted key; signed by: ${names}` };
  }
  return { ok: true, checkpoint };
}
