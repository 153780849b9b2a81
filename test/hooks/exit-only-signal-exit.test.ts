import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** What the hook bundle gives proper-lockfile for signal-exit (src/hooks/exit-only-signal-exit.cts), run in a real node process. */
const SHIM = fileURLToPath(new URL('../../dist/src/hooks/exit-only-signal-exit.cjs', import.meta.url));

function run(script: string): { status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, ['-e', `const onExit = require(${JSON.stringify(SHIM)}); ${script}`], { encoding: 'utf8' });
}

describe('exit-only signal-exit', () => {
  it('calls a callback at exit with the exit code, and not one that was removed', () => {
    const child = run(`onExit((code, signal) => console.log('kept', code, signal)); const remove = onExit(() => console.log('removed')); remove(); process.exitCode = 3;`);
    expect(child.stderr).toBe('');
    expect(child.status).toBe(3);
    expect(child.stdout).toBe('kept 3 null\n');
  });

  it('listens for no signal, so a SIGTERM ends the process as Node does by default', () => {
    const child = run(`onExit(() => console.log('at exit')); console.log(process.listenerCount('SIGTERM'), process.listenerCount('SIGINT')); process.kill(process.pid, 'SIGTERM'); setTimeout(() => {}, 5000);`);
    expect(child.signal).toBe('SIGTERM');
    expect(child.stdout).toBe('0 0\n');
  });
});
