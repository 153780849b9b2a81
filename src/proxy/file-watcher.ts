import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

export interface FileWatcher {
  close(): void;
}

/**
 * Calls `onChange` after `file` changes, once per burst of events, never two at a time. The
 * directory is watched, not the file: editors save by writing a new file and renaming it over
 * the old one. Errors of `onChange` go to `report`; the watch goes on.
 */
export function watchFileChanges(file: string, onChange: () => Promise<void>, report: (message: string) => void): FileWatcher {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const run = (): void => {
    running = running.then(() => onChange().catch((error: unknown) => report((error as Error).message)));
  };
  const watcher: FSWatcher = watch(dirname(file), (_event, name) => {
    if (name !== null && name !== basename(file)) return;
    // One save is often several events (truncate, write, rename): act once it settles.
    clearTimeout(timer);
    timer = setTimeout(run, 100);
  });
  watcher.unref();
  return {
    close() {
      clearTimeout(timer);
      watcher.close();
    },
  };
}
