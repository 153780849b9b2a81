import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DEFAULT_CONFIG_FILE } from '../config/config-file.js';

/** svc.yml in `cwd` or the nearest directory above it: the workspace a tool call happens in. */
export function findConfigUpward(cwd: string): string | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const candidate = join(dir, DEFAULT_CONFIG_FILE);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}
