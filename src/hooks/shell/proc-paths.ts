import type { WorkingDirectory } from './working-directory.js';

/**
 * Paths through /proc and /dev/fd name things of the process that opens them, not of the hook
 * that analyzes the command: `cd ~/.aws && cat /proc/self/cwd/credentials` reads the shell's
 * working directory, which the hook resolving the symlink in its own process would never see.
 * `/proc/self/cwd` (and `thread-self`) is the analyzed working directory, `/proc/self/root` is
 * `/`; another process' cwd, root or descriptors, and a descriptor above 2, lead where only the
 * running command knows.
 */
export type ProcTarget =
  /** The absolute paths (not normalized, so a `..` after them is still resolved physically) it stands for. */
  | { kind: 'paths'; paths: string[] }
  /** Known only when the command runs. */
  | { kind: 'dynamic' }
  /** Standard input, output or error: no file operation. */
  | { kind: 'inert' };

const SELF = new Set(['self', 'thread-self']);
const STANDARD_DESCRIPTORS = new Set(['0', '1', '2']);

/** What the absolute `raw` path leads to when it goes through /proc/<pid>/… or /dev/fd/…; undefined for any other path. */
export function procTarget(raw: string, cwd: WorkingDirectory): ProcTarget | undefined {
  // Cheap test first: nearly every path is neither.
  if (!raw.includes('/proc') && !raw.includes('/fd')) return undefined;
  const parts = raw.split('/');
  const stack: string[] = [];
  for (let index = 0; index < parts.length; index += 1) {
    const part = parts[index] as string;
    if (part === '' || part === '.') continue;
    if (part === '..') stack.pop();
    else stack.push(part);
    // /proc and /proc/<pid> are no symlinks the lexical `..` could get wrong, /proc/self aside,
    // which leads to a sibling: the first three components are enough to decide.
    if (stack.length < 3) continue;
    const rest = parts.slice(index + 1).join('/');
    const [top, second, third] = stack as [string, string, string];
    if (top === 'dev' && second === 'fd') return STANDARD_DESCRIPTORS.has(third) ? { kind: 'inert' } : { kind: 'dynamic' };
    if (top !== 'proc') return undefined;
    const self = SELF.has(second);
    if (self && third === 'cwd') return cwd.known ? { kind: 'paths', paths: cwd.dirs.map((dir) => `${dir}/${rest}`) } : { kind: 'dynamic' };
    if (self && third === 'root') return { kind: 'paths', paths: [`/${rest}`] };
    if (self && third === 'fd' && STANDARD_DESCRIPTORS.has(rest)) return { kind: 'inert' };
    if (third === 'cwd' || third === 'root' || third === 'fd' || third === 'map_files') return { kind: 'dynamic' };
    return undefined;
  }
  return undefined;
}
