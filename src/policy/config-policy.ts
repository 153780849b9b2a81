import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { LoadedConfig } from '../config/load-config.js';
import { compilePolicy, type CompiledPolicy } from './compile-policy.js';
import { compileProtectedPaths } from './protected-paths.js';

/**
 * The policy a loaded svc.yml enforces: its rules and budgets behind its protected paths, with
 * relative patterns anchored at the directory of svc.yml (the workspace) and `~` at the home of
 * the user running svc. The config file itself is write-protected whatever it is called.
 */
export function compileConfigPolicy(loaded: LoadedConfig, home: string = homedir()): CompiledPolicy {
  const { config } = loaded;
  const configFile = resolve(loaded.file);
  return compilePolicy(config.policy, compileProtectedPaths(config.protectedPaths, { root: dirname(configFile), home, configFile }));
}
