// First, so that it runs before any schema is built (see the module).
import './zod-without-jit.js';

/** What a `svc hook` process runs: the engine of run-hook.ts, with zod set up for a single call. */
export { runHook } from './run-hook.js';
