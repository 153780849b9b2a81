import { mkdirSync, symlinkSync } from 'node:fs';
import { mkdir, readFile, readlink, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fsFileWrite } from '../../src/adapters/fs-file-write.js';
import { canonicalJson, hashCanonical } from '../../src/events/canonical.js';
import { SvcError } from '../../src/errors.js';
import { action, listTree, recordingContext, rejectionCode, sha256Of, tempDir } from './support.js';

async function setup() {
  const base = await tempDir();
  const sandboxDir = path.join(base, 'sandbox');
  const outside = path.join(base, 'outside');
  await mkdir(outside);
  return { base, sandboxDir, outside, handler: fsFileWrite({ sandboxDir }) };
}

const write = (filePath: string, content: string) => action('fs.file.write', `file:${filePath}`, { path: filePath, content });

describe('fs.file.write', () => {
  it('creates the sandbox and parents, writes the content, and verifies the hash of the prepared request', async () => {
    const { sandboxDir, handler } = await setup();
    const context = recordingContext();
    const result = await handler.execute(write('notes/today/plan.md', '# Plan\n- ship ✅\n'), context);

    const written = await readFile(path.join(sandboxDir, 'notes', 'today', 'plan.md'));
    expect(written.toString('utf8')).toBe('# Plan\n- ship ✅\n');
    const request = Buffer.from(canonicalJson({ content: '# Plan\n- ship ✅\n', path: 'notes/today/plan.md' }), 'utf8');
    expect(result.executedPayloadHash).toBe(sha256Of(request));
    expect(result.executedPayloadHash).toBe(hashCanonical({ path: 'notes/today/plan.md', content: '# Plan\n- ship ✅\n' }));
    expect(context.verified).toEqual([result.executedPayloadHash]);
    expect(result.outcome).toBe('succeeded');
    expect(result.result).toEqual({ path: 'notes/today/plan.md', bytes: written.length });
    expect(result.resultHash).toBe(hashCanonical(result.result));
    expect(await listTree(sandboxDir)).toEqual(['notes', 'notes/today', 'notes/today/plan.md']);
  });

  it('replaces an existing file whole, leaving no temp file', async () => {
    const { sandboxDir, handler } = await setup();
    await handler.execute(write('a.txt', 'first version, longer'), recordingContext('act_1'));
    await handler.execute(write('a.txt', 'second'), recordingContext('act_2'));
    expect(await readFile(path.join(sandboxDir, 'a.txt'), 'utf8')).toBe('second');
    expect(await listTree(sandboxDir)).toEqual(['a.txt']);
  });

  it('writes an empty file', async () => {
    const { sandboxDir, handler } = await setup();
    const result = await handler.execute(write('empty', ''), recordingContext());
    expect(result.result).toEqual({ path: 'empty', bytes: 0 });
    expect((await stat(path.join(sandboxDir, 'empty'))).size).toBe(0);
  });

  it('creates nothing, not even the sandbox root, when verification throws', async () => {
    const { base, handler } = await setup();
    const context = recordingContext('act_1', () => {
      throw new SvcError('actionpass_expired', 'expired');
    });
    expect(await rejectionCode(handler.execute(write('deep/er/file.txt', 'x'), context))).toBe('actionpass_expired');
    expect(await listTree(base)).toEqual(['outside']);
  });

  it.each([
    ['../x', 'sandbox_path_traversal'],
    ['a/../../x', 'sandbox_path_traversal'],
    ['a/..', 'sandbox_path_traversal'],
    ['/etc/passwd', 'sandbox_path_absolute'],
    ['C:/Windows/win.ini', 'sandbox_path_absolute'],
    ['a\0b', 'sandbox_path_invalid'],
    ['..\\x', 'sandbox_path_invalid'],
    ['a//b', 'sandbox_path_invalid'],
    ['./a', 'sandbox_path_invalid'],
    ['a/', 'sandbox_path_invalid'],
    ['', 'sandbox_path_invalid'],
    ['a\nb', 'sandbox_path_invalid'],
    [`${'n'.repeat(256)}`, 'sandbox_path_invalid'],
  ])('refuses path %j with %s before verification, writing nothing', async (filePath, code) => {
    const { base, handler } = await setup();
    const request = write(filePath, 'pwned');
    expect(handler.validate(request)?.[0]?.path).toBe('capability.resource');
    const context = recordingContext();
    expect(await rejectionCode(handler.execute(request, context))).toBe(code);
    expect(context.verified).toEqual([]);
    expect(await listTree(base)).toEqual(['outside']);
  });

  it('refuses a symlinked parent directory, writing nothing outside the sandbox', async () => {
    const { sandboxDir, outside, handler } = await setup();
    await mkdir(sandboxDir);
    await symlink(outside, path.join(sandboxDir, 'link'));
    const context = recordingContext();
    expect(await rejectionCode(handler.execute(write('link/x.txt', 'pwned'), context))).toBe('sandbox_symlink');
    expect(context.verified).toEqual([]);
    expect(await listTree(outside)).toEqual([]);
  });

  it('refuses a symlinked parent deeper down', async () => {
    const { sandboxDir, outside, handler } = await setup();
    await mkdir(path.join(sandboxDir, 'a'), { recursive: true });
    await symlink(outside, path.join(sandboxDir, 'a', 'b'));
    expect(await rejectionCode(handler.execute(write('a/b/c/x.txt', 'pwned'), recordingContext()))).toBe('sandbox_symlink');
    expect(await listTree(outside)).toEqual([]);
  });

  it('refuses a symlinked target and leaves both the link and the file it points to untouched', async () => {
    const { sandboxDir, outside, handler } = await setup();
    await mkdir(sandboxDir);
    const victim = path.join(outside, 'victim');
    await writeFile(victim, 'original');
    await symlink(victim, path.join(sandboxDir, 't.txt'));
    expect(await rejectionCode(handler.execute(write('t.txt', 'pwned'), recordingContext()))).toBe('sandbox_symlink');
    expect(await readFile(victim, 'utf8')).toBe('original');
    expect(await readlink(path.join(sandboxDir, 't.txt'))).toBe(victim);
  });

  it('refuses a dangling symlink as target', async () => {
    const { sandboxDir, outside, handler } = await setup();
    await mkdir(sandboxDir);
    await symlink(path.join(outside, 'created-by-attacker'), path.join(sandboxDir, 't.txt'));
    expect(await rejectionCode(handler.execute(write('t.txt', 'pwned'), recordingContext()))).toBe('sandbox_symlink');
    expect(await listTree(outside)).toEqual([]);
  });

  it('refuses a sandbox root that is itself a symlink', async () => {
    const { sandboxDir, outside, handler } = await setup();
    await symlink(outside, sandboxDir);
    expect(await rejectionCode(handler.execute(write('x.txt', 'pwned'), recordingContext()))).toBe('sandbox_symlink');
    expect(await listTree(outside)).toEqual([]);
  });

  it('refuses a directory as target, and a file as parent', async () => {
    const { sandboxDir, handler } = await setup();
    await mkdir(path.join(sandboxDir, 'dir'), { recursive: true });
    await writeFile(path.join(sandboxDir, 'file'), 'x');
    expect(await rejectionCode(handler.execute(write('dir', 'x'), recordingContext()))).toBe('sandbox_target_not_file');
    expect(await rejectionCode(handler.execute(write('file/x', 'x'), recordingContext()))).toBe('sandbox_not_directory');
  });

  it('a parent swapped for a link right after verification fails the call and writes nothing outside', async () => {
    const { sandboxDir, outside, handler } = await setup();
    const context = recordingContext('act_1', () => {
      mkdirSync(sandboxDir);
      symlinkSync(outside, path.join(sandboxDir, 'sub'));
    });
    const result = await handler.execute(write('sub/deeper/x.txt', 'pwned'), context);
    expect(result).toMatchObject({ outcome: 'failed', error: { code: 'sandbox_symlink' }, result: { error: 'sandbox_symlink' } });
    expect(await listTree(outside)).toEqual([]);
  });

  it('a target swapped for a link right after verification fails the call, removes the temp file and leaves the victim alone', async () => {
    const { sandboxDir, outside, handler } = await setup();
    const victim = path.join(outside, 'victim');
    await writeFile(victim, 'original');
    const context = recordingContext('act_1', () => {
      mkdirSync(sandboxDir);
      symlinkSync(victim, path.join(sandboxDir, 't.txt'));
    });
    const result = await handler.execute(write('t.txt', 'pwned'), context);
    expect(result).toMatchObject({ outcome: 'failed', error: { code: 'sandbox_symlink' } });
    expect(await readFile(victim, 'utf8')).toBe('original');
    expect(await listTree(sandboxDir)).toEqual(['t.txt']);
  });

  describe('validate', () => {
    const validate = (resource: string, payload: Record<string, unknown>) => fsFileWrite({ sandboxDir: '/nonexistent' }).validate(action('fs.file.write', resource, payload as never));

    it('accepts a relative path with dots inside names', () => {
      expect(validate('file:src/a..b/.env.example', { path: 'src/a..b/.env.example', content: 'x' })).toBeUndefined();
    });

    it.each([
      ['a path that differs from the resource', { path: 'b.txt', content: 'x' }, 'capability.payload.path'],
      ['a differently spelled path to the same file', { path: 'dir//a.txt', content: 'x' }, 'capability.payload.path'],
      ['an extra key', { path: 'a.txt', content: 'x', mode: 0o777 }, 'capability.payload'],
      ['content of the wrong type', { path: 'a.txt', content: 42 }, 'capability.payload.content'],
      ['a path of the wrong type', { path: null, content: 'x' }, 'capability.payload.path'],
    ])('catches %s', (_name, payload, issuePath) => {
      expect(validate('file:a.txt', payload)?.map((issue) => issue.path)).toContain(issuePath);
    });

    it('refuses a resource of another kind', () => {
      expect(validate('path:a.txt', { path: 'a.txt', content: 'x' })?.[0]?.path).toBe('capability.resource');
    });
  });
});
