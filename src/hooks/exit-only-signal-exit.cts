/**
 * What the hook bundle gives proper-lockfile in place of signal-exit (scripts/bundle-hook.ts), with
 * signal-exit 3's signature. signal-exit, when first required, loads node:assert and listens for a
 * dozen signals, 3 to 4 ms of every hook process, so that a lock is removed when its holder dies of
 * a signal. The writer lock does not need that (src/events/writer-lock.ts): its owner file names the
 * holder's pid, and the next writer on this host that finds that process gone takes the lock at once,
 * as it must anyway after a SIGKILL. So proper-lockfile still removes its locks on a normal exit, and
 * a hook killed by a signal leaves its lock to the next writer.
 */
function onExit(callback: (code: number | null, signal: NodeJS.Signals | null) => void): () => void {
  const listener = (code: number): void => callback(code, null);
  process.on('exit', listener);
  return () => {
    process.removeListener('exit', listener);
  };
}

export = onExit;
