/** Printing for commands: one JSON document for `--json`, plain lines otherwise, progress only on a terminal. */

let stdoutGuarded = false;
let wroteOutput = false;

/** A reader that stops early (`svc replay | head`) is not an error: stdout guarded against it, once. */
export function guardStdout(): void {
  if (stdoutGuarded) return;
  stdoutGuarded = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

/**
 * Writes to stdout, guarded first (main.js guards it for every other command from its start).
 * Node builds process.stdout on first use, for a pipe a socket with the net module behind it, so
 * a hook call that has nothing to say never builds it.
 */
export function writeStdout(text: string): void {
  guardStdout();
  wroteOutput = true;
  process.stdout.write(text);
}

export function writeStderr(text: string): void {
  wroteOutput = true;
  process.stderr.write(text);
}

/** Whether writeStdout or writeStderr has written anything, which may still be on its way (a pipe is asynchronous on macOS). */
export function hasWrittenOutput(): boolean {
  return wroteOutput;
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * `text` with the characters a terminal acts on instead of showing (C0 and C1 controls, DEL, and
 * the bidirectional overrides and isolates that reorder a line) written as `\uXXXX`. For text
 * taken from evidence being checked: a record, a file name or a message quoting either must not
 * be able to move the cursor, erase the verdict or draw another one over it.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function printLine(text = ''): void {
  process.stdout.write(`${text}\n`);
}

/** A progress reporter that redraws one stderr line at most every 100 ms, and stays silent when stderr is not a TTY. */
export function progressReporter(label: string): { update: (done: number, total: number) => void; end: () => void } {
  if (!process.stderr.isTTY) return { update: () => undefined, end: () => undefined };
  let last = 0;
  let drawn = false;
  return {
    update(done, total) {
      const now = Date.now();
      if (now - last < 100 && done < total) return;
      last = now;
      drawn = true;
      const percent = total > 0 ? Math.floor((done / total) * 100) : 100;
      process.stderr.write(`\r${label} ${percent}% (${formatBytes(done)} of ${formatBytes(total)})`);
    },
    end() {
      if (drawn) process.stderr.write('\r\x1b[K');
    },
  };
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
