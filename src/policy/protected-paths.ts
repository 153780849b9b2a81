import { existsSync, realpathSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import picomatch from 'picomatch';
import * as z from 'zod';
import type { NormalizedAction } from '../actionpass/action.js';
import { escapeRegExp, patternScreen, type PatternNeed } from './pattern-screen.js';

/**
 * Protected paths: the files an agent must never read (secrets) or never change (the guard's own
 * configuration, keys and hook settings), whatever the policy rules say. The guard runs before
 * the rules on every `fs.file.*` action and on every `shell.command.run` action, so the proxy,
 * the SDK and the hooks all refuse the same things.
 *
 * Pattern forms (docs/configuration.md):
 *   `.env`, `*.pem`        no slash: matched against every segment of the path, so anywhere
 *   `~/.ssh`               under the home directory
 *   `/etc/shadow`          absolute
 *   `config/secrets.yml`   relative to the workspace (the directory of svc.yml)
 * A pattern protects the path it names and everything under it. `*` stays inside a segment, `**`
 * crosses them, and dot files are matched like any other (a secret is usually a dot file). On
 * macOS and Windows, whose default filesystems ignore case, matching ignores case too: there
 * `cat .ENV` reads `.env`.
 */

export const DEFAULT_READ_PROTECTED: readonly string[] = [
  '.env',
  // Every .env variant but the templates a repository commits for people to read (no values).
  '.env.!(example|sample|template|dist)',
  // `env_file: prod.env` in a compose file; wrangler's local secrets; direnv's exports.
  '*.env',
  '.dev.vars',
  '.envrc',
  '.htpasswd',
  // Terraform writes every secret a resource holds into its state, in plain text.
  '*.tfstate',
  '*.tfstate.backup',
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
  '*.jks',
  '*.keystore',
  '*.ppk',
  '*.kdbx',
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
  '~/.ssh',
  '~/.aws',
  '~/.azure',
  '~/.gnupg',
  '~/.kube',
  '~/.config/gcloud',
  '~/.config/gh',
  '~/.docker/config.json',
  '~/.npmrc',
  '~/.pypirc',
  '~/.netrc',
  '~/.git-credentials',
  '~/.cargo/credentials*',
  '~/.gem/credentials',
  '~/.config/composer/auth.json',
  '~/.composer/auth.json',
  '~/.gradle/gradle.properties',
  '~/.m2/settings-security.xml',
  '~/.terraform.d/credentials.tfrc.json',
  '~/.vault-token',
  '~/.config/hub',
  '~/.pulumi/credentials.json',
  '~/.s3cfg',
  '~/.boto',
  '~/.config/rclone',
  '~/.oci',
  '~/.config/doctl',
  '~/.databrickscfg',
  '~/.config/op',
  // sops's age keys.
  '~/.config/sops',
  // Database clients' passwords.
  '~/.pgpass',
  '~/.my.cnf',
  // Password stores and browser profiles (saved passwords, session cookies).
  '~/.password-store',
  '~/.local/share/keyrings',
  '~/Library/Keychains',
  '~/.mozilla',
  '~/.config/google-chrome',
  '~/.config/chromium',
  '~/Library/Application Support/Google/Chrome',
  '~/Library/Application Support/Firefox',
  // A process's environment, where credentials are often handed to programs (the agent's own included).
  '/proc/*/environ',
  '/proc/*/task/*/environ',
  // Histories, where a token typed or pasted on a command line stays.
  '~/.bash_history',
  '~/.zsh_history',
  '~/.psql_history',
  '~/.mysql_history',
  // The reviewer keys: an agent that can read them can approve its own requests.
  '~/.config/svc',
  // The ActionPass and ledger signing keys.
  '.svc/keys',
];

/**
 * The guard's own files, and files that become code: an agent that can rewrite them can switch
 * the guard off, or run what it likes where no hook sees it. Besides svc's
 * own, every place a supported runtime reads hooks from (src/hooks/install), in the project and
 * in the home directory: a user-level `disableAllHooks: true` or an emptied hook list turns the
 * project's hook off as surely as editing it. The running svc itself (its package and the `svc`
 * on PATH) is added at run time by `compileProtectedPaths`.
 */
export const DEFAULT_WRITE_PROTECTED: readonly string[] = [
  'svc.yml',
  'svc.mcp.lock',
  '.svc',
  '.claude/settings.json',
  '.claude/settings.local.json',
  '.cursor/hooks.json',
  '.gemini/settings.json',
  '.codex',
  '.github/hooks',
  '~/.claude/settings.json',
  '~/.claude/settings.local.json',
  '~/.cursor/hooks.json',
  '~/.gemini/settings.json',
  '~/.codex',
  '~/.copilot',
  // Files whose content runs later as code, outside any hook's view: git aliases, fsmonitor and
  // hooks (`!cat .env` in .git/config, then `git x`), shell startup files (then `bash -i`), MCP
  // server commands the next session starts, direnv's .envrc.
  // In every repository, not only the workspace's: `git -C /tmp/r status` runs /tmp/r's fsmonitor.
  '/**/.git/config',
  '/**/.git/hooks',
  // What the hook managers run on `git commit`, `git push`, …: husky's scripts (its core.hooksPath
  // is .husky/_), the usual core.hooksPath directories, lefthook's and pre-commit's configurations
  // (`run:`, `entry:` commands), simple-git-hooks' configuration files.
  '.husky',
  '.githooks',
  '.git-hooks',
  '.hooks',
  '.pre-commit-config.yaml',
  'lefthook.yml',
  'lefthook.yaml',
  '.lefthook.yml',
  '.lefthook.yaml',
  'lefthook-local.yml',
  'lefthook-local.yaml',
  '.lefthook-local.yml',
  '.lefthook-local.yaml',
  '.lefthook',
  '.simple-git-hooks.json',
  '.simple-git-hooks.js',
  '.simple-git-hooks.cjs',
  '.simple-git-hooks.mjs',
  'simple-git-hooks.json',
  'simple-git-hooks.js',
  'simple-git-hooks.cjs',
  'simple-git-hooks.mjs',
  '~/.gitconfig',
  '~/.config/git',
  '~/.bashrc',
  '~/.bash_profile',
  '~/.bash_login',
  '~/.bash_logout',
  '~/.profile',
  '~/.zshenv',
  '~/.zshrc',
  '~/.zprofile',
  '~/.zlogin',
  '~/.config/fish',
  '.mcp.json',
  '~/.claude.json',
  // Package managers' settings that change how they run the scripts svc follows, or run code of
  // their own: .npmrc's script-shell and node-options, yarn's yarn-path/yarnPath and plugins,
  // pnpm's .pnpmfile.cjs hooks, bun's preload.
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pnpmfile.cjs',
  '.pnpmfile.mjs',
  'bunfig.toml',
  '.envrc',
  // Settings a later plain command obeys, beyond any hook's view of that command: `upload-file =
  // ~/.ssh/id_rsa` in ~/.curlrc makes every later `curl URL` send the key; an editor's startup
  // file, a Python .pth or usercustomize, a systemd user unit or an autostart entry is code run later.
  '~/.curlrc',
  '~/.config/curlrc',
  '~/.wgetrc',
  '~/.config/wget',
  '~/.vimrc',
  '~/.vim',
  '~/.config/nvim',
  '~/.local/lib/python*/site-packages/*.pth',
  '~/.local/lib/python*/site-packages/usercustomize.py',
  '~/.config/systemd/user',
  '~/.config/autostart',
  // macOS's per-user launchd jobs, which launchd runs on its own schedule.
  '~/Library/LaunchAgents',
];

const pathPattern = z.string().min(1, 'a path pattern cannot be empty').max(1024).refine((pattern) => !pattern.includes('\0'), 'a path pattern cannot contain NUL');

export const protectedPathsSchema = z.strictObject({
  /** Include the built-in lists above. */
  defaults: z.boolean().default(true),
  /** More paths that may be neither read nor written. */
  read: z.array(pathPattern).max(1000).default([]),
  /** More paths that may be read but not written or deleted. */
  write: z.array(pathPattern).max(1000).default([]),
  /** What an operation whose path is known only at run time gets (`cat $FILE`, `python -c …`). */
  dynamic: z.enum(['step_up', 'deny']).default('step_up'),
});

export type ProtectedPathsConfig = z.infer<typeof protectedPathsSchema>;

export interface GuardVerdict {
  decision: 'deny' | 'step_up';
  reason: 'protected_path_read' | 'protected_path_write' | 'shell_dynamic_path' | 'shell_unparsable' | 'svc_command_protected';
  /** `protect:<pattern>` or `protect:dynamic`: a ruleId a person can find in svc.yml. */
  ruleId: string;
  explanation: string;
}

export interface PathGuard {
  /** The configuration the policyHash covers. */
  readonly config: ProtectedPathsConfig;
  check(action: NormalizedAction): GuardVerdict | undefined;
  /** The first protected pattern matching `path` for `access`, if any (for walking a directory a recursive read covers). */
  protects(path: string, access: 'read' | 'write'): string | undefined;
}

export interface GuardPlaces {
  /** The workspace: relative patterns are relative to it. */
  root: string;
  home: string;
  /** The config file in force, write-protected whatever its name (it is not in the hashed config). */
  configFile?: string;
  /**
   * Whose filesystem rules to match by (default: this process's). On darwin and win32 names
   * are matched ignoring case, as APFS and NTFS resolve them by default. An input rather than a
   * global so that a Linux test run can check both.
   */
  platform?: NodeJS.Platform;
  /**
   * The running svc (its package and executables), write-protected with the defaults; by
   * default found from this module's own location and PATH (`runningSvcFiles`).
   */
  svcFiles?: readonly string[];
}

type PathTest = (path: string) => boolean;

export interface CompiledPattern {
  pattern: string;
  matches: PathTest;
  /** What a path must have for `matches` to be possible: the guard's screen is built from these. */
  need: PatternNeed;
}

/**
 * Guards already compiled, by config object and places: a local hook compiles the same svc.yml's
 * guard twice, for planning the call and for the policy deciding it. A guard holds no state.
 */
const compiledGuards = new WeakMap<ProtectedPathsConfig, Map<string, PathGuard>>();

export function compileProtectedPaths(config: ProtectedPathsConfig, places: GuardPlaces): PathGuard {
  const key = JSON.stringify([places.root, places.home, places.configFile, places.platform, places.svcFiles]);
  let byPlaces = compiledGuards.get(config);
  if (!byPlaces) compiledGuards.set(config, (byPlaces = new Map()));
  let guard = byPlaces.get(key);
  if (!guard) byPlaces.set(key, (guard = compileGuard(config, places)));
  return guard;
}

function compileGuard(config: ProtectedPathsConfig, places: GuardPlaces): PathGuard {
  const nocase = ignoresCase(places.platform ?? process.platform);
  const compile = (pattern: string): CompiledPattern => compilePattern(pattern, places, nocase);
  const svcFiles = config.defaults ? (places.svcFiles ?? runningSvcFiles()) : [];
  const readPatterns = [...(config.defaults ? DEFAULT_READ_PROTECTED : []), ...config.read].map(compile);
  const writePatterns = [...(config.defaults ? DEFAULT_WRITE_PROTECTED : []), ...config.write, ...(places.configFile ? [places.configFile] : [])]
    .map(compile)
    .concat(svcFiles.map((file) => ({ pattern: file, matches: pathOrInside(file, nocase), need: { prefix: file } })));
  const mayBeReadProtected = patternScreen(readPatterns.map((compiled) => compiled.need), nocase);
  const mayBeWriteProtected = patternScreen(writePatterns.map((compiled) => compiled.need), nocase);

  const protects = (path: string, access: 'read' | 'write'): string | undefined => {
    if (mayBeReadProtected(path)) for (const compiled of readPatterns) if (compiled.matches(path)) return compiled.pattern;
    if (access === 'write' && mayBeWriteProtected(path)) for (const compiled of writePatterns) if (compiled.matches(path)) return compiled.pattern;
    return undefined;
  };

  const check = (action: NormalizedAction): GuardVerdict | undefined => {
    const { tool, payload } = action.capability;
    if (tool === 'shell.command.run') {
      if (typeof payload.unparsable === 'string') {
        return { decision: 'deny', reason: 'shell_unparsable', ruleId: 'protect:shell', explanation: `denied: the command cannot be analyzed (${payload.unparsable}), so what it would touch is unknown` };
      }
      return checkSvcCommands(payload.argv);
    }
    if (!tool.startsWith('fs.file.')) return undefined;
    const operation = tool.slice('fs.file.'.length);
    if (payload.dynamic !== undefined && payload.dynamic !== null && payload.dynamic !== false) {
      return {
        decision: config.dynamic,
        reason: 'shell_dynamic_path',
        ruleId: 'protect:dynamic',
        explanation: `${config.dynamic === 'deny' ? 'denied' : 'needs approval'}: the path of this ${operation} is known only when the command runs (${describeDynamic(payload.dynamic)}), so it could be a protected file`,
      };
    }
    const access = operation === 'read' || operation === 'execute' ? 'read' : 'write';
    for (const field of ['path', 'realPath'] as const) {
      const value = payload[field];
      if (typeof value !== 'string') continue;
      const path = isAbsolute(value) ? value : resolve(places.root, value);
      // A tree written into a repository's `.git` (`cp -r x/. .git/`) writes its config and hooks.
      const intoGit = access === 'write' && payload.recursive === true && /(?:^|\/)\.git\/?$/.test(path) ? '/**/.git/config' : undefined;
      const pattern = intoGit ?? protects(path, access);
      if (pattern === undefined) continue;
      const reason = access === 'read' ? 'protected_path_read' : 'protected_path_write';
      const via = field === 'realPath' ? ` (through a symlink from ${String(payload.path)})` : '';
      return {
        decision: 'deny',
        reason,
        ruleId: `protect:${pattern}`,
        explanation: `denied: ${path}${via} is a protected path (${pattern}); an agent may not ${operation} it`,
      };
    }
    const links = payload.links;
    if (access === 'write' && typeof links === 'number' && links > 1) {
      return {
        decision: config.dynamic,
        reason: 'shell_dynamic_path',
        ruleId: 'protect:dynamic',
        explanation: `${config.dynamic === 'deny' ? 'denied' : 'needs approval'}: ${String(payload.path)} has ${links} names (hard links), and writing it writes them all; one of them could be a protected file`,
      };
    }
    return undefined;
  };

  return { config, check, protects };
}

/**
 * An agent sharing the machine with its reviewer must not approve its own request (DESIGN.md 6):
 * `svc approvals approve|reject`, `svc mcp pins approve|reset` and key changes are refused when
 * they come through a hook. Recognised by the subcommand words wherever they stand, not by the
 * program's name: svc also runs as `node …/dist/src/cli/svc.cjs`, through `npx`, or as a copy
 * under any name (`cp $(which svc) ./s && ./s approvals approve …`).
 */
const SVC_KEY_VERBS = new Set(['init', 'rotate', 'revoke', 'add-reviewer']);

function checkSvcCommands(argvs: unknown): GuardVerdict | undefined {
  if (!Array.isArray(argvs)) return undefined;
  for (const argv of argvs) {
    if (!Array.isArray(argv)) continue;
    const words = argv.filter((word): word is string => typeof word === 'string' && !word.startsWith('-'));
    const named = reviewerCommandIn(words);
    if (named === undefined) continue;
    return {
      decision: 'deny',
      reason: 'svc_command_protected',
      ruleId: 'protect:svc-commands',
      explanation: `denied: \`svc ${named}\` is for the person reviewing the agent, not for the agent; ask the user to run it in their own terminal`,
    };
  }
  return undefined;
}

/** `approvals approve`, `keys add-reviewer`, `mcp pins reset`…: the first reviewer-only subcommand among `words` (flags removed). */
function reviewerCommandIn(words: readonly string[]): string | undefined {
  for (let at = 0; at < words.length; at += 1) {
    const [command, verb, object] = words.slice(at, at + 3);
    if (command === 'approvals' && (verb === 'approve' || verb === 'reject')) return `${command} ${verb}`;
    if (command === 'keys' && verb !== undefined && SVC_KEY_VERBS.has(verb)) return `${command} ${verb}`;
    if (command === 'mcp' && verb === 'pins' && (object === 'approve' || object === 'reset')) return `${command} ${verb} ${object}`;
  }
  return undefined;
}

/**
 * The running svc, which an agent must not rewrite: the installed package's code (`dist`,
 * `package.json`, `node_modules` of the package root above this module: not the whole root, which
 * is also the workspace when svc is developed with svc), the node binary running it, and the
 * first `svc` on PATH with the file it links to. Found once per process: a few stat calls.
 */
let runningSvc: readonly string[] | undefined;

export function runningSvcFiles(): readonly string[] {
  runningSvc ??= findRunningSvc(fileURLToPath(import.meta.url), process.env.PATH ?? '', process.platform);
  return runningSvc;
}

function findRunningSvc(moduleFile: string, searchPath: string, platform: NodeJS.Platform): string[] {
  const files = new Set<string>([process.execPath]);
  for (let dir = dirname(moduleFile); dirname(dir) !== dir; dir = dirname(dir)) {
    if (!existsSync(join(dir, 'package.json'))) continue;
    const top = relative(dir, moduleFile).split(sep)[0];
    if (top !== undefined && top !== '') files.add(join(dir, top));
    files.add(join(dir, 'package.json'));
    files.add(join(dir, 'node_modules'));
    break;
  }
  const names = platform === 'win32' ? ['svc.cmd', 'svc.ps1', 'svc.exe', 'svc'] : ['svc'];
  for (const dir of searchPath.split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    const found = names.map((name) => join(dir, name)).find((file) => existsSync(file));
    if (found === undefined) continue;
    files.add(found);
    try {
      files.add(realpathSync(found));
    } catch {
      // A link that cannot be followed protects at least its own name.
    }
    break;
  }
  return [...files];
}

function ignoresCase(platform: NodeJS.Platform): boolean {
  return platform === 'darwin' || platform === 'win32';
}

/** A literal path (a home or workspace that holds `*`, `[`, …) as the start of a picomatch pattern. */
function globEscape(path: string): string {
  return path.replace(/[\\*?[\]{}()!+@]/g, '\\$&');
}

function describeDynamic(dynamic: unknown): string {
  if (typeof dynamic === 'object' && dynamic !== null && 'text' in dynamic && 'reason' in dynamic) {
    return `${String((dynamic as { reason: unknown }).reason).replaceAll('_', ' ')}: ${String((dynamic as { text: unknown }).text)}`;
  }
  return 'dynamic';
}

export function compilePattern(pattern: string, places: GuardPlaces, nocase: boolean): CompiledPattern {
  const isGlob = GLOB_SYNTAX.test(pattern);
  if (!pattern.includes('/')) {
    // A bare name protects that name anywhere: test every segment of the path.
    if (!isGlob) return { pattern, matches: anySegment(sameName(pattern, nocase)), need: { name: pattern } };
    // What picomatch's own matcher does on POSIX paths: a segment equal to the glob's text, or one its expression matches.
    const expression = picomatch.makeRe(pattern, { dot: true, nocase });
    return { pattern, matches: anySegment((part) => part === pattern || expression.test(part)), need: { segment: `${expression.source}|^${escapeRegExp(pattern)}$` } };
  }
  // The anchor (home, workspace) is a literal path even when it holds `[` or `*`.
  const anchor = pattern.startsWith('~/') ? places.home : isAbsolute(pattern) ? '' : places.root;
  const rest = pattern.startsWith('~/') ? pattern.slice(2) : pattern;
  if (!isGlob) {
    const literal = join(anchor, rest).replace(/\/+$/, '');
    return { pattern, matches: pathOrInside(literal, nocase), need: { prefix: literal } };
  }
  const trimmed = join(globEscape(anchor), rest).replace(/\/+$/, '');
  const matchPath = picomatch([trimmed, `${trimmed}/**`], { dot: true, nocase });
  return { pattern, matches: (path) => matchPath(path), need: { prefix: literalDirectory(trimmed) } };
}

/**
 * The segments of a glob before the first one with glob syntax: every path it matches starts with
 * them. Taken from the glob as joined, whose `..` may climb above a segment with a wildcard.
 */
function literalDirectory(glob: string): string {
  const segments = glob.split('/');
  const wildcard = segments.findIndex((segment) => GLOB_SYNTAX.test(segment));
  return segments.slice(0, wildcard === -1 ? undefined : wildcard).join('/');
}

/**
 * Characters picomatch gives a meaning to. A pattern with none of them names exact paths, which
 * are matched by comparing strings: compiling the seventy default patterns as globs was a large
 * share of a hook process' life.
 */
const GLOB_SYNTAX = /[\\*?[\]{}()!+@]/;

function anySegment(matchSegment: PathTest): PathTest {
  return (path) => path.split('/').some((part) => part !== '' && matchSegment(part));
}

/** `name` as a whole segment; ignoring case as picomatch's `nocase` does (a regular expression's `i` flag). */
function sameName(name: string, nocase: boolean): PathTest {
  if (!nocase) return (segment) => segment === name;
  const expression = new RegExp(`^${escapeRegExp(name)}$`, 'i');
  return (segment) => expression.test(segment);
}

/** `literal` itself or anything under it: what picomatch's `[literal, literal/**]` with `dot` matches in a normalized path. */
function pathOrInside(literal: string, nocase: boolean): PathTest {
  if (!nocase) return (path) => path === literal || (path.startsWith(literal) && path[literal.length] === '/');
  const expression = new RegExp(`^${escapeRegExp(literal)}(?:/[^]*)?$`, 'i');
  return (path) => expression.test(path);
}

