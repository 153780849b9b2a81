/**
 * Preloaded into `svc proxy` by test/e2e/proxy-guards.test.ts (`node --import`), together with a
 * file size limit (RLIMIT_FSIZE): it gives SIGXFSZ a listener that does nothing, so a ledger write
 * past the limit fails with EFBIG, the way a full disk fails it with ENOSPC, instead of ending the
 * process. Node ignores SIGXFSZ by itself, but proper-lockfile's signal-exit listens for it and
 * re-raises it when it is the only listener, which kills the process; with a second listener it
 * does not. The proxy's code paths are untouched: this only chooses how the kernel refuses.
 */
process.on('SIGXFSZ', () => undefined);

export {};
