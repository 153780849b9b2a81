/**
 * Turns a channel name, mailbox address or action id into one file name that cannot leave its
 * directory. The handlers' schemas already refuse such names; this is the second line, so a
 * schema loosened later still cannot produce `..`, a `/` or a hidden file.
 *
 * Every UTF-8 byte outside `[A-Za-z0-9._@+-]` is written as `%XX`, and so is a leading dot, so the
 * mapping is injective (two different names never share a file) and the result never starts with
 * a dot: it cannot be `.` or `..`, and never collides with the handlers' `.svc-*.tmp` files.
 */
const SAFE_BYTE = /^[A-Za-z0-9._@+-]$/;
/** Most file systems cap one name at 255 bytes. */
const MAX_NAME_BYTES = 255;

export function safeFileName(name: string): string | undefined {
  if (name.length === 0) return undefined;
  let out = '';
  for (const byte of Buffer.from(name, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += byte < 0x80 && SAFE_BYTE.test(char) && !(out.length === 0 && char === '.') ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out.length <= MAX_NAME_BYTES ? out : undefined;
}
