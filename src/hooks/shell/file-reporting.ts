import { posix } from 'node:path';
import type { AnalysisSession } from './analysis-session.js';
import type { FileOptions } from './command-context.js';
import { isInertDevice, resolvePath } from './path-resolution.js';
import { procTarget } from './proc-paths.js';
import type { DynamicReason, FileOperationKind } from './shell-analysis.js';
import type { ShellState } from './shell-state.js';
import type { Word } from './word-expansion.js';

/**
 * Turns "this command does `kind` to the file this word names" into file operations: one per
 * candidate working directory, resolved and with symlinks followed; a dynamic word, or a
 * relative path in an unknown directory, becomes a dynamic operation instead of disappearing.
 * Returns the physical paths of the operations reported (none for dynamic ones), and remembers
 * what is written, for a later run of the file (script-files.ts).
 */
export function reportFile(session: AnalysisSession, state: ShellState, kind: FileOperationKind, word: Word, via: string, options: FileOptions = {}): string[] {
  const recursive = options.recursive === true ? { recursive: true } : {};
  const physicalPaths: string[] = [];
  if (word.value === undefined) {
    session.log.add({ kind, dynamic: { text: word.text, reason: word.reason }, ...recursive, via });
    return physicalPaths;
  }
  const value = word.value;
  if (value === '' || (value === '-' && options.dashIsFile !== true)) return physicalPaths;
  const bases = baseDirectories(state, value, options.relativeTo);
  if (!Array.isArray(bases)) {
    session.log.add({ kind, dynamic: { text: `${bases.text}/${value}`, reason: bases.reason }, ...recursive, via });
    return physicalPaths;
  }
  for (const base of bases) {
    const through = procTarget(value.startsWith('/') ? value : `${base}/${value}`, state.cwd);
    if (through?.kind === 'inert') continue;
    if (through?.kind === 'dynamic') {
      session.log.add({ kind, dynamic: { text: value, reason: 'unsupported' }, ...recursive, via: `${via} (a path of the running process)` });
      continue;
    }
    for (const target of through?.paths ?? [value]) {
      const resolved = resolvePath(target, base, session.probe, options.followFinal ?? true);
      if (isInertDevice(resolved.path)) continue;
      // A tree operation on something that is a file is an operation on that file.
      const physical = resolved.realPath ?? resolved.path;
      const isTree = options.recursive === true && session.probe.kind(physical) !== 'file';
      const tree = isTree ? { ...recursive, ...(options.skips !== undefined && { skips: options.skips }) } : {};
      session.log.add({ kind, path: resolved.path, ...(resolved.realPath !== undefined && { realPath: resolved.realPath }), ...tree, via });
      physicalPaths.push(physical);
      if (kind === 'write' && options.keepsContent !== true) {
        session.writtenFiles.add(physical);
        if (isTree) session.writtenTrees.add(physical);
      }
    }
  }
  return physicalPaths;
}

/** The directories a relative `value` may be relative to, or why they are unknown. */
function baseDirectories(state: ShellState, value: string, relativeTo: Word | undefined): string[] | { text: string; reason: DynamicReason } {
  if (value.startsWith('/')) return ['/'];
  if (relativeTo !== undefined) {
    if (relativeTo.value === undefined) return { text: relativeTo.text, reason: relativeTo.reason };
    const anchor = relativeTo.value;
    if (anchor.startsWith('/')) return [posix.dirname(posix.resolve(anchor))];
    if (!state.cwd.known) return { text: `${state.cwd.text}/${posix.dirname(anchor)}`, reason: state.cwd.reason };
    return [...new Set(state.cwd.dirs.map((dir) => posix.dirname(posix.resolve(dir, anchor))))];
  }
  if (!state.cwd.known) return { text: state.cwd.text, reason: state.cwd.reason };
  return [...state.cwd.dirs];
}
