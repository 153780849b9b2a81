import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DEFAULT_CONFIG_FILE } from '../config/config-file.js';

/**
 * The svc.yml a tool call happens under, when the hook was not given one (`--config`, which
 * `svc init` always writes into the installed hook command): the outermost svc.yml in `cwd` or
 * a directory above it.
 *
 * Outermost, not nearest: a svc.yml below another one arrives with what the agent brings into
 * the workspace (`git clone … vendor/x`, an extracted archive), and the nearest would let it
 * replace the workspace's policy (`protectedPaths: {defaults: false}`) for every call whose cwd
 * is inside it. The outer one was there first and is write-protected by the guard it configures.
 */
export function findConfigUpward(cwd: string): string | undefined {
  let outermost: string | undefined;
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const candidate = join(dir, DEFAULT_CONFIG_FILE);
    if (existsSync(candidate)) outermost = candidate;
    if (dirname(dir) === dir) return outermost;
  }
}
