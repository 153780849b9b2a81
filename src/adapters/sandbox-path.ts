import { ADAPTER_CODES } from './adapter-codes.js';

/**
 * The static half of sandbox confinement: a path an agent names must be relative and stay below
 * the sandbox root by its text alone, before any file is looked at. Symbolic links, the dynamic
 * half, are checked on disk by confined-write.ts.
 *
 * The path is refused rather than normalized: `a/./b` or `a//b` would be harmless, but the
 * payload must equal the resource the policy decided on, and accepting two spellings of one file
 * would let a policy rule on `file:a/b` be sidestepped by `file:a//b`.
 */
export type SandboxPath = { ok: true; segments: string[] } | { ok: false; code: string; message: string };

const MAX_PATH_BYTES = 4096;
const MAX_SEGMENT_BYTES = 255;
const CONTROL = /\p{Cc}/u;
const WINDOWS_ABSOLUTE = /^[A-Za-z]:/;

export function parseSandboxPath(text: string): SandboxPath {
  const invalid = (message: string): SandboxPath => ({ ok: false, code: ADAPTER_CODES.sandboxPathInvalid, message });
  if (text.length === 0) return invalid('the path is empty');
  if (text.includes('\0')) return invalid('the path contains a NUL character');
  if (text.startsWith('/') || WINDOWS_ABSOLUTE.test(text)) return { ok: false, code: ADAPTER_CODES.sandboxPathAbsolute, message: 'the path must be relative to the sandbox, not absolute' };
  // A backslash is a separator on Windows and an ordinary character on POSIX: ambiguous, so refused.
  if (text.includes('\\')) return invalid('the path contains a backslash; use "/" between directories');
  if (CONTROL.test(text)) return invalid('the path contains a control character');
  if (Buffer.byteLength(text, 'utf8') > MAX_PATH_BYTES) return invalid(`the path is longer than ${MAX_PATH_BYTES} bytes`);
  const segments = text.split('/');
  if (segments.includes('..')) return { ok: false, code: ADAPTER_CODES.sandboxPathTraversal, message: 'the path has a ".." segment; it must stay inside the sandbox' };
  for (const segment of segments) {
    if (segment === '' || segment === '.') return invalid('the path has an empty or "." segment (write it without "//", "./" or a trailing "/")');
    if (Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES) return invalid(`a path segment is longer than ${MAX_SEGMENT_BYTES} bytes`);
  }
  return { ok: true, segments };
}
