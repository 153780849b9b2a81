#!/usr/bin/env node
/**
 * The `svc` executable (package.json `bin`, and what `svc init` writes into an agent's hook
 * settings). A coding agent starts `svc hook` before every tool call, and Node's ES module loader
 * alone costs such a process about 20 ms of its start-up; a CommonJS file does not start it. So
 * this file requires the bundled hook (hook-bundle/hook-entry.cjs, scripts/bundle-hook.ts), and
 * hands every other command, `svc hook --help` and a hook without a working bundle to main.js.
 */
import path = require('node:path');
import type { runHookMain } from './hook-entry.js' with { 'resolution-mode': 'import' };

function startMain(): void {
  void import('./main.js');
}

/**
 * The bundle, or undefined when it cannot be loaded. main.js then tells which it was: a build
 * without the bundle (from TypeScript alone) runs the modules, a broken bundle is reported.
 */
function bundledHookEntry(): { runHookMain: typeof runHookMain } | undefined {
  try {
    return require(path.join(__dirname, 'hook-bundle', 'hook-entry.cjs')) as { runHookMain: typeof runHookMain };
  } catch {
    return undefined;
  }
}

const entry = process.argv[2] === 'hook' ? bundledHookEntry() : undefined;
if (entry === undefined) {
  startMain();
} else {
  // Its output goes through writeStdout (output.ts), which guards stdout against a reader that stops early.
  void entry.runHookMain(process.argv, __filename).then((done) => done || startMain());
}
