import { chmod, mkdir, readFile, stat, symlink, lstat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOOK_RUNTIMES } from '../../../src/hooks/hook-event.js';
import { hookSettingsFile, installHook } from '../../../src/hooks/install/index.js';
import { listTree, readJson, rejection, snapshot, workspace } from './support.js';

/**
 * What every installer shares: idempotence, refusing files it cannot merge into (and leaving
 * them byte for byte), atomic replacement, and keeping the file's indentation, mode and links.
 */
const SETTINGS: Record<(typeof HOOK_RUNTIMES)[number], string> = {
  'claude-code': '.claude/settings.json',
  codex: '.codex/hooks.json',
  cursor: '.cursor/hooks.json',
  gemini: '.gemini/settings.json',
  copilot: '.github/hooks/svc.json',
};

describe.each(HOOK_RUNTIMES)('installHook(%s)', (runtime) => {
  const command = `svc hook ${runtime}`;

  it('creates the settings file and its directories, and reports it', async () => {
    const dir = await workspace();
    const result = await installHook(runtime, { workspace: dir, command });
    const file = path.join(dir, SETTINGS[runtime]);
    expect(result).toStrictEqual({ file, changed: true });
    expect(hookSettingsFile(runtime, dir)).toBe(file);
    expect(JSON.stringify(await readJson(file))).toContain(JSON.stringify(command));
    expect((await readFile(file, 'utf8')).endsWith('}\n')).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o644);
    // Only the settings file: no temp file left beside it.
    expect((await listTree(dir)).filter((entry) => !SETTINGS[runtime].startsWith(entry))).toEqual([]);
  });

  it('a second run changes nothing and does not rewrite the file', async () => {
    const dir = await workspace();
    await installHook(runtime, { workspace: dir, command });
    const file = path.join(dir, SETTINGS[runtime]);
    const before = await snapshot(file);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await installHook(runtime, { workspace: dir, command })).toStrictEqual({ file, changed: false });
    expect(await snapshot(file)).toStrictEqual(before);
  });

  it('a different svc command replaces the first one, so the hook runs once per call; other hooks stay', async () => {
    const dir = await workspace();
    await installHook(runtime, { workspace: dir, command });
    await installHook(runtime, { workspace: dir, command: `./audit.sh ${runtime}` });
    const pinned = `/usr/bin/node /opt/svc/dist/src/cli/main.js hook ${runtime} --config /w/svc.yml`;
    expect((await installHook(runtime, { workspace: dir, command: pinned })).changed).toBe(true);
    const text = await readFile(path.join(dir, SETTINGS[runtime]), 'utf8');
    expect(text).not.toContain(JSON.stringify(command));
    expect(text).toContain(JSON.stringify(`./audit.sh ${runtime}`));
    expect(text.split(JSON.stringify(pinned)).length - 1).toBe(text.split(JSON.stringify(`./audit.sh ${runtime}`)).length - 1);
    expect((await installHook(runtime, { workspace: dir, command: pinned })).changed).toBe(false);
  });

  it('after an upgrade, the hook that starts svc.cjs replaces the one an earlier svc init set up with main.js', async () => {
    const dir = await workspace();
    const earlier = `/usr/bin/node /opt/svc/dist/src/cli/main.js hook ${runtime} --config /w/svc.yml`;
    const current = `/usr/bin/node /opt/svc/dist/src/cli/svc.cjs hook ${runtime} --config /w/svc.yml`;
    await installHook(runtime, { workspace: dir, command: earlier });
    expect((await installHook(runtime, { workspace: dir, command: current })).changed).toBe(true);
    const text = await readFile(path.join(dir, SETTINGS[runtime]), 'utf8');
    expect(text).toContain(JSON.stringify(current));
    expect(text).not.toContain(JSON.stringify(earlier));
  });

  for (const [label, content] of [
    ['invalid JSON', '{\n  "hooks": {\n    "PreToolUse": [\n'],
    ['JSON with comments', '{\n  // my settings\n  "theme": "dark"\n}\n'],
    ['a JSON array', '[1, 2]\n'],
    ['a JSON string', '"hooks"\n'],
    ['hooks that are not an object', '{"hooks": ["svc"]}\n'],
    ['hooks that are null', '{"hooks": null}\n'],
  ] as const) {
    it(`refuses ${label} and leaves the file byte for byte`, async () => {
      const dir = await workspace();
      const file = path.join(dir, SETTINGS[runtime]);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content);
      const before = await snapshot(file);
      const error = await rejection(installHook(runtime, { workspace: dir, command }));
      expect(error.code).toBe('hook_settings_invalid');
      expect(error.message).toContain(file);
      expect(error.message).toContain('svc does not overwrite it');
      expect(await snapshot(file)).toStrictEqual(before);
      expect(await listTree(path.dirname(file))).toEqual([path.basename(file)]);
    });
  }

  it('refuses an event entry that is not a list', async () => {
    const dir = await workspace();
    const file = path.join(dir, SETTINGS[runtime]);
    await mkdir(path.dirname(file), { recursive: true });
    const event = { 'claude-code': 'PreToolUse', codex: 'PreToolUse', cursor: 'preToolUse', gemini: 'BeforeTool', copilot: 'preToolUse' }[runtime];
    await writeFile(file, JSON.stringify({ hooks: { [event]: { command: 'x' } } }));
    const before = await snapshot(file);
    const error = await rejection(installHook(runtime, { workspace: dir, command }));
    expect(error.code).toBe('hook_settings_invalid');
    expect(error.message).toContain(`hooks.${event} is not a list`);
    expect(await snapshot(file)).toStrictEqual(before);
  });

  it('refuses a directory where the file should be, and a file that is not UTF-8', async () => {
    const dir = await workspace();
    const file = path.join(dir, SETTINGS[runtime]);
    await mkdir(file, { recursive: true });
    expect((await rejection(installHook(runtime, { workspace: dir, command }))).code).toBe('hook_settings_invalid');
    const other = await workspace();
    const bad = path.join(other, SETTINGS[runtime]);
    await mkdir(path.dirname(bad), { recursive: true });
    await writeFile(bad, Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
    expect((await rejection(installHook(runtime, { workspace: other, command }))).message).toContain('is not UTF-8');
  });

  it('treats an empty file (or a UTF-8 BOM and whitespace) as no settings', async () => {
    const dir = await workspace();
    const file = path.join(dir, SETTINGS[runtime]);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '\uFEFF \n');
    expect((await installHook(runtime, { workspace: dir, command })).changed).toBe(true);
    expect(JSON.stringify(await readJson(file))).toContain(JSON.stringify(command));
  });

  it('keeps the file’s indentation and mode', async () => {
    const dir = await workspace();
    const file = path.join(dir, SETTINGS[runtime]);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '{\n    "unrelated": {\n        "deep": [1, 2]\n    }\n}\n');
    await chmod(file, 0o600);
    await installHook(runtime, { workspace: dir, command });
    const text = await readFile(file, 'utf8');
    expect(text.startsWith('{\n    "unrelated": {\n        "deep": [\n            1,')).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const tabbed = await workspace();
    const tabFile = path.join(tabbed, SETTINGS[runtime]);
    await mkdir(path.dirname(tabFile), { recursive: true });
    await writeFile(tabFile, '{\n\t"unrelated": true\n}\n');
    await installHook(runtime, { workspace: tabbed, command });
    expect(await readFile(tabFile, 'utf8')).toMatch(/^\{\n\t"unrelated": true,\n\t"/);
  });

  it('writes through a symlinked settings file and keeps the link', async () => {
    const dir = await workspace();
    const dotfiles = await workspace();
    const real = path.join(dotfiles, 'settings.json');
    await writeFile(real, '{"unrelated": 1}\n');
    const file = path.join(dir, SETTINGS[runtime]);
    await mkdir(path.dirname(file), { recursive: true });
    await symlink(real, file);
    expect((await installHook(runtime, { workspace: dir, command })).changed).toBe(true);
    expect((await lstat(file)).isSymbolicLink()).toBe(true);
    expect(await readJson(real)).toMatchObject({ unrelated: 1 });
    expect(JSON.stringify(await readJson(real))).toContain(JSON.stringify(command));
    expect(await listTree(dotfiles)).toEqual(['settings.json']);
  });
});

describe('installHook: arguments', () => {
  it('refuses an unknown runtime, listing the known ones', async () => {
    const dir = await workspace();
    const error = await rejection(installHook('windsurf', { workspace: dir, command: 'svc hook windsurf' }));
    expect(error.code).toBe('hook_runtime_unknown');
    expect(error.message).toBe('unknown hook runtime "windsurf"; known: claude-code, codex, cursor, gemini, copilot');
    expect(await listTree(dir)).toEqual([]);
  });

  it('refuses a workspace that is not a directory', async () => {
    const dir = await workspace();
    expect((await rejection(installHook('claude-code', { workspace: path.join(dir, 'missing'), command: 'svc hook claude-code' }))).code).toBe('hook_workspace_invalid');
    await writeFile(path.join(dir, 'file'), 'x');
    expect((await rejection(installHook('claude-code', { workspace: path.join(dir, 'file'), command: 'svc hook claude-code' }))).code).toBe('hook_workspace_invalid');
  });

  it('refuses an empty or multi-line command', async () => {
    const dir = await workspace();
    for (const command of ['', '   ', 'svc hook x\nrm -rf /', 'svc\u0000']) {
      expect((await rejection(installHook('claude-code', { workspace: dir, command }))).code).toBe('hook_command_invalid');
    }
    expect(await listTree(dir)).toEqual([]);
  });

  it('accepts a relative workspace, resolved against the current directory', async () => {
    const dir = await workspace();
    const relative = path.relative(process.cwd(), dir);
    const result = await installHook('codex', { workspace: relative, command: 'svc hook codex' });
    expect(result.file).toBe(path.join(dir, '.codex/hooks.json'));
  });
});
