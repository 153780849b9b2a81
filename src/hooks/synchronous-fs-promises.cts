/**
 * What the hook bundles get for `node:fs/promises` (scripts/bundle-hook.ts): the same
 * API, each call done synchronously and its result (or error) handed back as a settled promise.
 * A hook process does nothing while it waits for a file, and in a new process fs/promises is cold
 * code with a thread-pool round trip per call: the 37 calls of a typical hook cost about 5-10% of
 * its wall time more than their synchronous forms.
 *
 * A synchronous open of a FIFO would wait for a writer past the hook's own timeout, which races
 * asynchronous work only (run-hook.ts `decideWithin`). So every open here adds O_NONBLOCK: on a
 * regular file it changes nothing, and a FIFO answers at once (writing one without a reader fails
 * with ENXIO; reading one without a writer finds it empty), which the callers turn into a refusal.
 * What this module does not implement it takes from Node's fs/promises, loaded on first use.
 */
import fs = require('node:fs');

type OpenFlags = string | number;

/** `flags` as a number, with O_NONBLOCK added. */
function nonBlocking(flags: OpenFlags | undefined): number {
  const numeric = typeof flags === 'number' ? flags : flagsOf(flags ?? 'r');
  return numeric | fs.constants.O_NONBLOCK;
}

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND, O_EXCL } = fs.constants;

/** Node's string flags as numbers (fs.open's own table). */
const STRING_FLAGS: Readonly<Record<string, number>> = {
  r: O_RDONLY,
  'r+': O_RDWR,
  w: O_TRUNC | O_CREAT | O_WRONLY,
  wx: O_TRUNC | O_CREAT | O_WRONLY | O_EXCL,
  'w+': O_TRUNC | O_CREAT | O_RDWR,
  'wx+': O_TRUNC | O_CREAT | O_RDWR | O_EXCL,
  a: O_APPEND | O_CREAT | O_WRONLY,
  ax: O_APPEND | O_CREAT | O_WRONLY | O_EXCL,
  'a+': O_APPEND | O_CREAT | O_RDWR,
  'ax+': O_APPEND | O_CREAT | O_RDWR | O_EXCL,
};

function flagsOf(flags: string): number {
  const numeric = STRING_FLAGS[flags];
  if (numeric === undefined) throw Object.assign(new TypeError(`unsupported open flags ${JSON.stringify(flags)}`), { code: 'ERR_INVALID_ARG_VALUE' });
  return numeric;
}

type WriteOptions = fs.WriteFileOptions & { flag?: OpenFlags };

/** A FileHandle over a descriptor, with the methods svc calls on one. */
class SynchronousFileHandle {
  constructor(readonly fd: number) {}

  async read(buffer: NodeJS.ArrayBufferView, offset = 0, length = buffer.byteLength - offset, position: number | null = null): Promise<{ bytesRead: number; buffer: NodeJS.ArrayBufferView }> {
    return { bytesRead: fs.readSync(this.fd, buffer, offset, length, position), buffer };
  }

  async write(buffer: NodeJS.ArrayBufferView, offset = 0, length = buffer.byteLength - offset, position: number | null = null): Promise<{ bytesWritten: number; buffer: NodeJS.ArrayBufferView }> {
    return { bytesWritten: fs.writeSync(this.fd, buffer, offset, length, position), buffer };
  }

  async stat(options?: fs.StatOptions): Promise<fs.Stats | fs.BigIntStats> {
    return fs.fstatSync(this.fd, options);
  }

  async readFile(options?: { encoding?: BufferEncoding | null } | BufferEncoding | null): Promise<string | Buffer> {
    return fs.readFileSync(this.fd, options);
  }

  async writeFile(data: string | NodeJS.ArrayBufferView, options?: WriteOptions | BufferEncoding): Promise<void> {
    fs.writeFileSync(this.fd, data, options);
  }

  async chmod(mode: fs.Mode): Promise<void> {
    fs.fchmodSync(this.fd, mode);
  }

  async truncate(length?: number): Promise<void> {
    fs.ftruncateSync(this.fd, length);
  }

  async sync(): Promise<void> {
    fs.fsyncSync(this.fd);
  }

  async datasync(): Promise<void> {
    fs.fdatasyncSync(this.fd);
  }

  async close(): Promise<void> {
    fs.closeSync(this.fd);
  }
}

async function open(path: fs.PathLike, flags?: OpenFlags, mode?: fs.Mode): Promise<SynchronousFileHandle> {
  return new SynchronousFileHandle(fs.openSync(path, nonBlocking(flags), mode));
}

async function readFile(path: fs.PathLike, options?: { encoding?: BufferEncoding | null; flag?: OpenFlags } | BufferEncoding | null): Promise<string | Buffer> {
  const flag = typeof options === 'object' && options !== null ? options.flag : undefined;
  const encoding = typeof options === 'string' ? options : (options?.encoding ?? null);
  const fd = fs.openSync(path, nonBlocking(flag));
  try {
    return fs.readFileSync(fd, { encoding });
  } finally {
    fs.closeSync(fd);
  }
}

async function writeFile(path: fs.PathLike, data: string | NodeJS.ArrayBufferView, options?: WriteOptions | BufferEncoding): Promise<void> {
  const settings: WriteOptions = typeof options === 'string' ? { encoding: options } : (options ?? {});
  const fd = fs.openSync(path, nonBlocking(settings.flag ?? 'w'), settings.mode ?? 0o666);
  try {
    fs.writeFileSync(fd, data, settings.encoding === undefined ? undefined : { encoding: settings.encoding });
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The rest of fs/promises, by name, loaded only when one of them is called: a hook calls none of
 * them, and loading fs/promises itself (with the readline and stream code it pulls in) would cost
 * every hook process a millisecond for nothing.
 */
const OTHER_FUNCTIONS = ['access', 'appendFile', 'chmod', 'chown', 'copyFile', 'cp', 'lchown', 'link', 'lutimes', 'mkdtemp', 'opendir', 'readdir', 'readlink', 'realpath', 'rmdir', 'statfs', 'symlink', 'truncate', 'watch'] as const;

const synchronousFsPromises = {
  constants: fs.constants,
  open,
  readFile,
  writeFile,
  stat: async (path: fs.PathLike, options?: fs.StatOptions) => fs.statSync(path, options),
  lstat: async (path: fs.PathLike, options?: fs.StatOptions) => fs.lstatSync(path, options),
  mkdir: async (path: fs.PathLike, options?: fs.MakeDirectoryOptions | fs.Mode) => fs.mkdirSync(path, options),
  rename: async (from: fs.PathLike, to: fs.PathLike) => fs.renameSync(from, to),
  unlink: async (path: fs.PathLike) => fs.unlinkSync(path),
  rm: async (path: fs.PathLike, options?: fs.RmOptions) => fs.rmSync(path, options),
  utimes: async (path: fs.PathLike, atime: fs.TimeLike, mtime: fs.TimeLike) => fs.utimesSync(path, atime, mtime),
};
for (const name of OTHER_FUNCTIONS) Object.defineProperty(synchronousFsPromises, name, { enumerable: true, get: () => fs.promises[name] });

export = synchronousFsPromises as typeof synchronousFsPromises & Pick<typeof fs.promises, (typeof OTHER_FUNCTIONS)[number]>;
