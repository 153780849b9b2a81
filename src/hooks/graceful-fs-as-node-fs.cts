/**
 * What the hook bundle gives proper-lockfile in place of graceful-fs (scripts/bundle-hook.ts):
 * Node's own fs module. graceful-fs queues and retries operations that fail with EMFILE, and to do
 * that it clones and patches the fs module when first required, about 1 ms of every hook process.
 * A hook process holds a handful of files at a time.
 */
import fs = require('node:fs');

export = fs;
