/**
 * The build step after tsc: copies the playground's static page (src/playground/public) beside
 * the compiled server (dist/src/playground/public), so `svc playground` from dist serves it.
 */
import { cpSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
cpSync(join(root, 'src', 'playground', 'public'), join(root, 'dist', 'src', 'playground', 'public'), { recursive: true });
