import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import picomatch from 'picomatch';
import { normalizeAction } from '../../src/actionpass/action.js';
import { compilePolicy } from '../../src/policy/compile-policy.js';
import { policySchema } from '../../src/policy/policy-schema.js';
import { compilePattern, compileProtectedPaths, protectedPathsSchema } from '../../src/policy/protected-paths.js';

const places = { root: '/work/repo', home: '/home/dev', configFile: '/work/repo/agent.yml' };
const guard = compileProtectedPaths(protectedPathsSchema.parse({ read: ['config/secrets.yml'], write: ['.github/workflows'] }), places);

function fileAction(tool: string, payload: Record<string, unknown>) {
  const normalized = normalizeAction(
    { schemaVersion: 'svc.action.v0', actor: { agentId: 'agent:claude-code' }, intent: { taskId: 'session:t' }, capability: { tool, resource: `file:${String(payload.path ?? '?')}`, payload } },
    'org:acme',
  );
  if (!normalized.ok) throw new Error(JSON.stringify(normalized.issues));
  return normalized.action;
}

describe('protected paths', () => {
  it.each([
    ['/work/repo/.env', 'read', '.env'],
    ['/work/repo/services/api/.env.production', 'read', '.env.!(example|sample|template|dist)'],
    ['/work/repo/.env.example.local', 'read', '.env.!(example|sample|template|dist)'],
    ['/work/repo/certs/server.pem', 'read', '*.pem'],
    ['/home/dev/.ssh/config', 'read', '~/.ssh'],
    ['/home/dev/.ssh', 'read', '~/.ssh'],
    ['/home/dev/.aws/credentials', 'read', '~/.aws'],
    ['/home/dev/.config/svc/reviewer-keys/user.key', 'read', '*.key'],
    ['/work/repo/.svc/keys/pass.json', 'read', '.svc/keys'],
    ['/work/repo/config/secrets.yml', 'read', 'config/secrets.yml'],
    ['/work/repo/deploy/prod.env', 'read', '*.env'],
    ['/work/repo/.envrc', 'read', '.envrc'],
    ['/work/repo/worker/.dev.vars', 'read', '.dev.vars'],
    ['/work/repo/infra/terraform.tfstate', 'read', '*.tfstate'],
    ['/work/repo/infra/terraform.tfstate.backup', 'read', '*.tfstate.backup'],
    ['/work/repo/android/release.jks', 'read', '*.jks'],
    ['/home/dev/.pgpass', 'read', '~/.pgpass'],
    ['/home/dev/.config/rclone/rclone.conf', 'read', '~/.config/rclone'],
    ['/home/dev/.mozilla/firefox/x.default/logins.json', 'read', '~/.mozilla'],
    ['/home/dev/Library/Application Support/Google/Chrome/Default/Login Data', 'read', '~/Library/Application Support/Google/Chrome'],
    ['/home/dev/.bash_history', 'read', '~/.bash_history'],
    ['/proc/self/environ', 'read', '/proc/*/environ'],
    ['/proc/4242/task/4243/environ', 'read', '/proc/*/task/*/environ'],
    ['/work/repo/svc.yml', 'write', 'svc.yml'],
    ['/work/repo/.svc/ledger.jsonl', 'write', '.svc'],
    ['/work/repo/.claude/settings.json', 'write', '.claude/settings.json'],
    ['/work/repo/.github/workflows/ci.yml', 'write', '.github/workflows'],
    ['/work/repo/agent.yml', 'write', '/work/repo/agent.yml'],
  ] as const)('%s is protected for %s by %s', (path, access, pattern) => {
    expect(guard.protects(path, access)).toBe(pattern);
  });

  it.each(['/work/repo/src/env.ts', '/work/repo/.envrc.md/x', '/work/repo/src/env.ts.env-example', '/work/repo/docs/tfstate.md', '/work/repo/.env.example', '/work/repo/api/.env.sample', '/work/repo/.env.template', '/work/repo/.env.dist', '/work/repo/README.md', '/home/dev/.sshd', '/work/other/config/secrets.yml'])('%s is not protected', (path) => {
    expect(guard.protects(path, 'write')).toBeUndefined();
  });

  it.each(['/work/repo/.git/config', '/work/repo/.git/hooks/pre-commit', '/tmp/other/.git/config', '/work/repo/vendor/lib/.git/hooks/post-checkout', '/home/dev/.gitconfig', '/home/dev/.bashrc', '/home/dev/.zshenv', '/home/dev/.profile', '/work/repo/.mcp.json', '/home/dev/.claude.json', '/work/repo/.husky/pre-commit', '/work/repo/.githooks/pre-push', '/work/repo/.pre-commit-config.yaml', '/work/repo/lefthook.yml', '/work/repo/.simple-git-hooks.json', '/work/repo/.npmrc', '/work/repo/.yarnrc.yml', '/work/repo/.pnpmfile.cjs', '/work/repo/bunfig.toml', '/home/dev/Library/LaunchAgents/x.plist'])(
    '%s becomes code later: write-protected, readable',
    (path) => {
      expect(guard.protects(path, 'write')).toBeDefined();
      expect(guard.protects(path, 'read')).toBeUndefined();
    },
  );

  it('is compiled once per config and places: the same svc.yml in the same workspace gives the same guard', () => {
    const config = protectedPathsSchema.parse({ read: ['config/secrets.yml'] });
    const first = compileProtectedPaths(config, places);
    expect(compileProtectedPaths(config, { ...places })).toBe(first);
    const elsewhere = compileProtectedPaths(config, { ...places, root: '/work/other' });
    expect(elsewhere).not.toBe(first);
    expect(elsewhere.protects('/work/other/config/secrets.yml', 'read')).toBe('config/secrets.yml');
    expect(first.protects('/work/other/config/secrets.yml', 'read')).toBeUndefined();
    expect(compileProtectedPaths(protectedPathsSchema.parse({ read: ['config/secrets.yml'] }), places)).not.toBe(first);
  });

  it('write-only paths may be read', () => {
    expect(guard.protects('/work/repo/svc.yml', 'read')).toBeUndefined();
    expect(guard.protects('/work/repo/.svc/ledger.jsonl', 'read')).toBeUndefined();
  });

  it('checks both the path and where its symlink leads, and names the reason', () => {
    const verdict = guard.check(fileAction('fs.file.read', { operation: 'read', path: '/work/repo/notes', realPath: '/work/repo/.env' }));
    expect(verdict).toMatchObject({ decision: 'deny', reason: 'protected_path_read', ruleId: 'protect:.env' });
    expect(verdict?.explanation).toContain('through a symlink');
    expect(guard.check(fileAction('fs.file.delete', { operation: 'delete', path: '/work/repo/svc.yml' }))).toMatchObject({ reason: 'protected_path_write' });
    expect(guard.check(fileAction('fs.file.read', { operation: 'read', path: '/work/repo/src/a.ts' }))).toBeUndefined();
  });

  it('a dynamic path steps up (or denies, by config), an unparsable command and svc approval commands are denied', () => {
    expect(guard.check(fileAction('fs.file.read', { operation: 'read', dynamic: { reason: 'variable', text: '$F' } }))).toMatchObject({ decision: 'step_up', reason: 'shell_dynamic_path' });
    const strict = compileProtectedPaths(protectedPathsSchema.parse({ dynamic: 'deny' }), places);
    expect(strict.check(fileAction('fs.file.read', { operation: 'read', dynamic: { reason: 'variable', text: '$F' } }))).toMatchObject({ decision: 'deny' });
    const shell = (payload: Record<string, unknown>) => fileAction('shell.command.run', payload);
    expect(guard.check(shell({ command: 'if', unparsable: 'syntax error' }))).toMatchObject({ decision: 'deny', reason: 'shell_unparsable' });
    expect(guard.check(shell({ command: 'npx svc approvals approve apr_1', argv: [['npx', 'svc', 'approvals', 'approve', 'apr_1']] }))).toMatchObject({ reason: 'svc_command_protected' });
    expect(guard.check(shell({ command: 'svc keys rotate', argv: [['svc', 'keys', 'rotate']] }))).toMatchObject({ reason: 'svc_command_protected' });
    expect(guard.check(shell({ command: 'svc mcp pins approve fs --all', argv: [['svc', 'mcp', 'pins', 'approve', 'fs', '--all']] }))).toMatchObject({ reason: 'svc_command_protected' });
    expect(guard.check(shell({ command: 'svc mcp pins list', argv: [['svc', 'mcp', 'pins', 'list']] }))).toBeUndefined();
    expect(guard.check(shell({ command: 'svc approvals list', argv: [['svc', 'approvals', 'list']] }))).toBeUndefined();
  });

  it('in a policy: a guard deny beats a rule allow, a rule deny beats a guard step_up, and the hash covers the guard', () => {
    const rules = policySchema.parse({ rules: [{ id: 'all-files', when: { tool: 'fs.file.*' }, decision: 'allow' }] });
    const policy = compilePolicy(rules, guard);
    const context = { now: 0, countAllowed: () => 0 };
    expect(policy.evaluate(fileAction('fs.file.read', { operation: 'read', path: '/work/repo/.env' }), context, 'hook')).toMatchObject({ decision: 'deny', reasons: ['protected_path_read'] });
    expect(policy.evaluate(fileAction('fs.file.read', { operation: 'read', path: '/work/repo/a.ts' }), context, 'hook')).toMatchObject({ decision: 'allow' });
    const denyAll = compilePolicy(policySchema.parse({ rules: [{ id: 'no-files', when: { tool: 'fs.file.*' }, decision: 'deny' }] }), guard);
    expect(denyAll.evaluate(fileAction('fs.file.read', { operation: 'read', dynamic: { reason: 'variable', text: '$F' } }), context, 'hook')).toMatchObject({ decision: 'deny', ruleId: 'no-files' });
    expect(policy.policyHash).not.toBe(compilePolicy(rules).policyHash);
  });
});

describe('protected paths on case-insensitive filesystems', () => {
  // The platform is an input of the guard, so this Linux run checks macOS and Windows matching too.
  const on = (platform: NodeJS.Platform) => compileProtectedPaths(protectedPathsSchema.parse({}), { ...places, platform, svcFiles: ['/opt/svc/dist'] });

  it.each([
    ['/work/repo/.ENV', 'read'],
    ['/work/repo/.Env.Local', 'read'],
    ['/home/dev/.SSH/config', 'read'],
    ['/home/dev/.Aws/credentials', 'read'],
    ['/work/repo/SVC.YML', 'write'],
    ['/work/repo/.SVC/keys/pass.json', 'read'],
    ['/opt/SVC/dist/src/cli/main.js', 'write'],
  ] as const)('%s is protected (%s) on darwin and win32, not on linux', (path, access) => {
    expect(on('darwin').protects(path, access)).toBeDefined();
    expect(on('win32').protects(path, access)).toBeDefined();
    expect(on('linux').protects(path, access)).toBeUndefined();
  });

  it('the running svc and the runtimes\' user settings are write-protected, readable', () => {
    const guard = on('linux');
    for (const path of ['/opt/svc/dist/src/cli/main.js', '/home/dev/.claude/settings.json', '/home/dev/.gemini/settings.json', '/home/dev/.cursor/hooks.json', '/home/dev/.codex/config.toml']) {
      expect(guard.protects(path, 'write'), path).toBeDefined();
      expect(guard.protects(path, 'read'), path).toBeUndefined();
    }
  });
});

describe('protected paths named without glob syntax', () => {
  // Such patterns are matched by comparing strings, not compiled by picomatch: on every
  // normalized path the answer must be picomatch's, ignoring case or not.
  const segment = fc.constantFrom('work', 'repo', 'Repo', 'home', 'dev', '.ssh', '.SSH', '.env', '.Env', 'svc.yml', 'SVC.yml', 'x', '.svc', 'keys', 'KEYS', 'a[1]', 'b*');
  const path = fc.array(segment, { minLength: 1, maxLength: 6 }).map((segments) => `/${segments.join('/')}`);
  const literal = fc.array(segment, { minLength: 1, maxLength: 3 }).map((segments) => segments.join('/'));

  it.each(['linux', 'darwin'] as const)('a literal pattern matches exactly what picomatch matches (%s)', (platform) => {
    const nocase = platform === 'darwin';
    fc.assert(
      fc.property(literal, path, (pattern, candidate) => {
        fc.pre(!/[*[\]]/.test(pattern));
        const guard = compileProtectedPaths(protectedPathsSchema.parse({ defaults: false, read: [pattern] }), { root: '/work/repo', home: '/home/dev', platform });
        const reference = pattern.includes('/')
          ? picomatch([`/work/repo/${pattern}`, `/work/repo/${pattern}/**`], { dot: true, nocase })(candidate)
          : candidate.split('/').some((name) => name !== '' && picomatch(pattern, { dot: true, nocase })(name));
        expect(guard.protects(candidate, 'read') !== undefined).toBe(reference);
      }),
      { numRuns: 1_000 },
    );
  });

  it.each(['linux', 'darwin'] as const)('a bare glob matches a segment exactly when picomatch\'s matcher does (%s)', (platform) => {
    const nocase = platform === 'darwin';
    const glob = fc.array(fc.constantFrom('*', '?', '.env', 'id_rsa', '.', 'pem', 'x', 'X', '[kK]', '{a,b}', '!(a)', '@(x|y)', '+(x)', '**'), { minLength: 1, maxLength: 4 }).map((parts) => parts.join(''));
    const name = fc.array(fc.constantFrom('.', 'env', '.env', 'id_rsa', 'pem', 'x', 'X', 'k', 'K', 'a', 'b', 'y', '*', '{a,b}', '[kK]'), { minLength: 1, maxLength: 4 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(glob, name, (pattern, segment) => {
        const guard = compileProtectedPaths(protectedPathsSchema.parse({ defaults: false, read: [pattern] }), { root: '/work/repo', home: '/home/dev', platform, svcFiles: [] });
        expect(guard.protects(`/${segment}`, 'read') !== undefined).toBe(picomatch(pattern, { dot: true, nocase })(segment));
      }),
      { numRuns: 2_000 },
    );
  });

  it('a workspace whose own path holds glob characters is still the literal anchor of its patterns', () => {
    for (const root of ['/work/a[1]', '/work/b*', '/work/c{d,e}', '/work/(f)']) {
      const guard = compileProtectedPaths(protectedPathsSchema.parse({ read: ['config/secret*.yml'] }), { root, home: '/home/dev', svcFiles: [] });
      expect(guard.protects(`${root}/.svc/keys/pass.json`, 'read'), root).toBe('.svc/keys');
      expect(guard.protects(`${root}/config/secrets.yml`, 'read'), root).toBe('config/secret*.yml');
      expect(guard.protects(`${root}/svc.yml`, 'write'), root).toBe('svc.yml');
      expect(guard.protects('/work/a1/config/secrets.yml', 'read'), root).toBeUndefined();
    }
  });
});

describe('the guard\'s screen', () => {
  // The guard tries its patterns one by one only for paths that pass a combined screen: the screen
  // must never turn away a path some pattern matches, so the guard answers as the patterns alone do.
  const segment = fc.constantFrom('work', 'repo', 'home', 'dev', '.ssh', '.SSH', '.env', '.env.local', 'id_rsa.pub', 'x.pem', 'X.PEM', 'keys', 'a', 'b', 'a[1]', 'b*', '.', '..', 'c{d,e}');
  const globSegment = fc.oneof(segment, fc.constantFrom('*', '**', '*.pem', 'id_rsa*', '.env.*', '{a,b}', '[kK]eys', '?', 'x*y', '!(a)', '@(b|c)', '+(d)'));
  const path = fc.array(segment, { minLength: 0, maxLength: 6 }).map((segments) => `/${segments.join('/')}`);
  const pattern = fc.oneof(
    globSegment,
    fc.array(globSegment, { minLength: 2, maxLength: 4 }).map((segments) => segments.join('/')),
    fc.array(globSegment, { minLength: 1, maxLength: 4 }).map((segments) => `~/${segments.join('/')}`),
    fc.array(globSegment, { minLength: 1, maxLength: 4 }).map((segments) => `/${segments.join('/')}`),
  );
  const rootPath = fc.constantFrom('/work/repo', '/home/dev', '/home/dev/.ssh', '/work/repo/a', '/work/repo/a[1]', '/', '/work/repo/.env');

  it.each(['linux', 'darwin'] as const)('answers as trying every pattern would (%s)', (platform) => {
    const nocase = platform === 'darwin';
    const places = { root: '/work/repo', home: '/home/dev', platform, svcFiles: [] };
    fc.assert(
      fc.property(fc.array(pattern, { minLength: 1, maxLength: 4 }), fc.oneof(path, rootPath, fc.tuple(rootPath, path).map(([root, rest]) => `${root}${rest}`)), (patterns, candidate) => {
        fc.pre(patterns.every((each) => compiles(each, places, nocase))); // `/*/..` names `/`, which picomatch refuses
        const guard = compileProtectedPaths(protectedPathsSchema.parse({ defaults: false, read: patterns, write: patterns }), places);
        const first = patterns.find((each) => compilePattern(each, places, nocase).matches(candidate));
        expect(guard.protects(candidate, 'read')).toBe(first);
        expect(guard.protects(candidate, 'write')).toBe(first);
      }),
      { numRuns: 3_000 },
    );
  });

  function compiles(pattern: string, places: { root: string; home: string }, nocase: boolean): boolean {
    try {
      compilePattern(pattern, places, nocase);
      return true;
    } catch {
      return false;
    }
  }

  it.each(['linux', 'darwin'] as const)('answers as trying every pattern would, for paths asked one after another (%s)', (platform) => {
    // The screen keeps the last directory's answer: any sequence, same directory or not, must answer alike.
    const nocase = platform === 'darwin';
    const places = { root: '/work/repo', home: '/home/dev', platform, svcFiles: [] };
    const sibling = fc.tuple(fc.constantFrom('/work/repo/a', '/home/dev/.ssh', '/work/repo/.env', '/home/dev'), segment).map(([directory, name]) => `${directory}/${name}`);
    fc.assert(
      fc.property(fc.array(pattern, { minLength: 1, maxLength: 4 }), fc.array(fc.oneof(path, sibling), { minLength: 1, maxLength: 12 }), (patterns, candidates) => {
        fc.pre(patterns.every((each) => compiles(each, places, nocase)));
        const guard = compileProtectedPaths(protectedPathsSchema.parse({ defaults: false, read: patterns }), places);
        for (const candidate of candidates) expect(guard.protects(candidate, 'read'), candidate).toBe(patterns.find((each) => compilePattern(each, places, nocase).matches(candidate)));
      }),
      { numRuns: 1_000 },
    );
  });

  it('turns away ordinary paths, so their check is one expression', () => {
    const guard = compileProtectedPaths(protectedPathsSchema.parse({}), { root: '/work/repo', home: '/home/dev', svcFiles: [] });
    const screened = compilePattern('*.pem', { root: '/work/repo', home: '/home/dev' }, false);
    expect(screened.need).toEqual({ segment: expect.stringContaining('pem') });
    expect(compilePattern('~/.cargo/credentials*', { root: '/work/repo', home: '/home/dev' }, false).need).toEqual({ prefix: '/home/dev/.cargo' });
    // `..` after a wildcard climbs above it: `~/x*/../..` names /home itself.
    const climbing = compileProtectedPaths(protectedPathsSchema.parse({ defaults: false, read: ['~/x*/../..'] }), { root: '/work/repo', home: '/home/dev', svcFiles: [] });
    expect(climbing.protects('/home/other', 'read')).toBe('~/x*/../..');
    for (const path of ['/work/repo/src/app.ts', '/work/repo/node_modules/x/index.js', '/home/dev/notes.md']) expect(guard.protects(path, 'read'), path).toBeUndefined();
  });
});
