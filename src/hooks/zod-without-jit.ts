import { config } from 'zod';

/**
 * A hook process validates each schema once or twice and exits. Zod's JIT compiles a parser for
 * every object schema on its first use, which pays only over many uses, so the one-shot engine
 * turns it off. Zod reads the setting when a schema is built, so this module must be evaluated
 * before any schema module: it is the first import of hook-process-engine.ts.
 */
config({ jitless: true });
