import { posix } from 'node:path';
import type { DynamicReason } from './shell-analysis.js';

/**
 * The directory relative paths resolve against, as far as the analysis can tell. A `cd` whose
 * success is uncertain (its target does not exist yet, or it is on the left of `||`) leaves
 * several candidates, and a relative path is then reported against each of them; a `cd $DIR`
 * makes every later relative path dynamic.
 */
export type WorkingDirectory =
  /** Candidate directories, the likeliest first. */
  | { known: true; dirs: readonly string[] }
  | { known: false; text: string; reason: DynamicReason };

/** More candidates than this are not worth tracking: the directory is reported as unknown. */
const MAX_CANDIDATES = 4;

export function knownDirectory(dir: string): WorkingDirectory {
  return { known: true, dirs: [dir] };
}

/** Either of two directories (after a conditional `cd`). */
export function eitherDirectory(likely: WorkingDirectory, other: WorkingDirectory): WorkingDirectory {
  if (!likely.known) return likely;
  if (!other.known) return other;
  const dirs = [...likely.dirs];
  for (const dir of other.dirs) if (!dirs.includes(dir)) dirs.push(dir);
  if (dirs.length > MAX_CANDIDATES) return { known: false, text: `{${dirs.join(',')}}`, reason: 'unsupported' };
  return { known: true, dirs };
}

/** The directory `target` names from `from` (a static, already expanded path). */
export function enterDirectory(from: WorkingDirectory, target: string): WorkingDirectory {
  if (target.startsWith('/')) return knownDirectory(posix.resolve(target));
  if (!from.known) return { known: false, text: `${from.text}/${target}`, reason: from.reason };
  const dirs = [...new Set(from.dirs.map((dir) => posix.resolve(dir, target)))];
  return { known: true, dirs };
}

/** The likeliest directory (for globs), undefined when unknown. */
export function primaryDirectory(directory: WorkingDirectory): string | undefined {
  return directory.known ? directory.dirs[0] : undefined;
}
