import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { loadConfig, type LoadedConfig } from '../config/load-config.js';

export interface ConfigWatcher {
  close(): void;
}

/**
 * Watches svc.yml and hands each valid new version to `apply`. The directory is watched, not the
 * file: editors save by writing a new file and renaming it over the old one. An invalid file is
 * reported and changes nothing; the running policy stays in force.
 */
export function watchConfig(
  file: string,
  apply: (loaded: LoadedConfig) => Promise<void>,
  report: (message: string) => void,
): ConfigWatcher {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const reload = (): void => {
    running = running.then(async () => {
      try {
        await apply(await loadConfig(file));
      } catch (error) {
        report(`${file} not reloaded, the running policy stays in force: ${(error as Error).message}`);
      }
    });
  };
  const watcher: FSWatcher = watch(dirname(file), (_event, name) => {
    if (name !== null && name !== basename(file)) return;
    // One save is often several events (truncate, write, rename): act once it settles.
    clearTimeout(timer);
    timer = setTimeout(reload, 100);
  });
  watcher.unref();
  return {
    close() {
      clearTimeout(timer);
      watcher.close();
    },
  };
}
