import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DynamicReason, FileOperation, FileOperationKind } from '../../../src/hooks/shell/shell-analysis.js';

/**
 * The shell-analysis corpus (corpus.json) and the workspace it is written against. Each entry
 * is a command, the file operations it must be found to perform, and the decision the hook
 * engine must reach with the default protected paths. The engine's tests reuse both.
 *
 * Paths in the corpus are relative to the fixture's project root (`.` is the root itself),
 * `~/…` for the fake home, or absolute for anything outside both.
 */

export type CorpusDecision = 'deny' | 'step_up' | 'no_opinion';

export interface CorpusOperation {
  kind: FileOperationKind;
  path?: string;
  /** Where a symlink on the way leads, when it differs from `path`. */
  realPath?: string;
  dynamic?: DynamicReason;
  recursive?: boolean;
}

export interface CorpusEntry {
  command: string;
  /** The working directory, relative to the project root (default: the root). */
  cwd?: string;
  operations: CorpusOperation[];
  decision: CorpusDecision;
  /** True when the command must be refused as `shell_unparsable` (operations is then empty). */
  unparsable?: boolean;
  note?: string;
}

export interface FixtureWorkspace {
  /** The project: the working directory of the corpus commands. */
  root: string;
  /** The fake home directory (`~`, `$HOME`). */
  home: string;
  cleanup(): void;
}

/** Files of the fixture, relative to its base directory (project/ and home/). */
const FILES: Record<string, string> = {
  'project/.env': 'API_KEY=fixture-secret\n',
  'project/.env.local': 'DB_PASSWORD=fixture-secret\n',
  'project/README.md': '# fixture\n',
  'project/package.json': '{"name":"fixture"}\n',
  'project/svc.yml': 'version: 0\n',
  'project/.svc/ledger.jsonl': '',
  'project/.claude/settings.json': '{}\n',
  'project/src/app.ts': 'export const app = 1;\n',
  'project/src/util.ts': 'export const util = 1;\n',
  'project/config/server.pem': '-----BEGIN FIXTURE-----\n',
  'project/config/app.json': '{}\n',
  'project/public/index.html': '<!doctype html>\n',
  'project/public/style.css': 'body{}\n',
  'project/docs/guide.md': '# guide\n',
  'project/scripts/build.sh': 'echo build\n',
  'project/scripts/deploy.sh': 'echo deploy\n',
  'project/scripts/leak.sh': '#!/bin/bash\ncat .env\n',
  'project/scripts/print-key': 'cat ~/.aws/credentials\n',
  'project/scripts/report.py': '#!/usr/bin/env python3\nprint("report")\n',
  'project/scripts/broken.sh': 'echo $((\n',
  'project/sub/dir/notes.txt': 'notes\n',
  'project/notes.txt': 'notes\n',
  'project/data.csv': 'a,b\n',
  'project/backup.tar.gz': '',
  'project/patch.diff': '',
  'home/.ssh/id_rsa': '-----BEGIN FIXTURE KEY-----\n',
  'home/.ssh/id_rsa.pub': 'ssh-rsa fixture\n',
  'home/.ssh/config': 'Host *\n',
  'home/.aws/credentials': '[default]\n',
  'home/.aws/config': '[default]\n',
  'home/.kube/config': 'apiVersion: v1\n',
  'home/.docker/config.json': '{}\n',
  'home/.npmrc': '//registry/:_authToken=fixture\n',
  'home/.netrc': 'machine example.com\n',
  'home/.gitconfig': '[user]\n',
  'home/.bashrc': '# bashrc\n',
  'home/notes.txt': 'notes\n',
  'home/projects/other/README.md': '# other\n',
};

/** Symlinks: link (relative to the base) → target as written in the link. */
const LINKS: Record<string, string> = {
  'project/link-to-env': '.env',
  'project/link-to-config': 'config',
  'project/link-to-ssh': '../home/.ssh',
  'project/public/innocent.txt': '../.env.local',
  // A directory holding a link to the home directory: a recursive read of it reaches ~/.ssh.
  'project/sub/home-link': '../../home',
};

/** Creates the fixture under a fresh temporary directory (its real path, so no symlink sits above it). */
export function makeFixtureWorkspace(): FixtureWorkspace {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'svc-shell-')));
  for (const [file, content] of Object.entries(FILES)) {
    mkdirSync(dirname(join(base, file)), { recursive: true });
    writeFileSync(join(base, file), content);
  }
  for (const [link, target] of Object.entries(LINKS)) {
    mkdirSync(dirname(join(base, link)), { recursive: true });
    symlinkSync(target, join(base, link));
  }
  return { root: join(base, 'project'), home: join(base, 'home'), cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

/** corpus.json, found next to this module (tests) or in the source tree (the compiled benchmark). */
export function loadCorpus(): CorpusEntry[] {
  const candidates = [new URL('./corpus.json', import.meta.url), new URL('../../../../test/hooks/shell/corpus.json', import.meta.url)].map((url) => fileURLToPath(url));
  const file = candidates.find((candidate) => existsSync(candidate));
  if (file === undefined) throw new Error(`corpus.json not found (looked at ${candidates.join(', ')})`);
  return JSON.parse(readFileSync(file, 'utf8')) as CorpusEntry[];
}

/** An absolute path written the corpus way: relative to the root, `~/…`, or absolute. */
export function toCorpusPath(path: string, fixture: Pick<FixtureWorkspace, 'root' | 'home'>): string {
  if (path === fixture.root) return '.';
  if (path.startsWith(`${fixture.root}/`)) return path.slice(fixture.root.length + 1);
  if (path === fixture.home) return '~';
  if (path.startsWith(`${fixture.home}/`)) return `~/${path.slice(fixture.home.length + 1)}`;
  return path;
}

/** The inverse of toCorpusPath. */
export function fromCorpusPath(path: string, fixture: Pick<FixtureWorkspace, 'root' | 'home'>): string {
  if (path === '~') return fixture.home;
  if (path.startsWith('~/')) return posix.join(fixture.home, path.slice(2));
  if (path.startsWith('/')) return path;
  return posix.resolve(fixture.root, path);
}

/** An analyzer's operation in corpus form. */
export function toCorpusOperation(operation: FileOperation, fixture: Pick<FixtureWorkspace, 'root' | 'home'>): CorpusOperation {
  return {
    kind: operation.kind,
    ...(operation.path !== undefined && { path: toCorpusPath(operation.path, fixture) }),
    ...(operation.realPath !== undefined && { realPath: toCorpusPath(operation.realPath, fixture) }),
    ...(operation.dynamic !== undefined && { dynamic: operation.dynamic.reason }),
    ...(operation.recursive === true && { recursive: true }),
  };
}

// ---------------------------------------------------------------------------------------------
// The decision rules of the corpus, from the default protected paths (issue 4): what the hook
// engine must decide for the operations of an entry.

const READ_PROTECTED_NAMES = [/^\.env$/, /^\.env\.(?!(?:example|sample|template|dist)$).*$/, /\.env$/, /^\.dev\.vars$/, /^\.envrc$/, /^\.htpasswd$/, /\.tfstate(?:\.backup)?$/, /\.(?:pem|key|p12|pfx|jks|keystore|ppk|kdbx)$/, /^id_rsa/, /^id_ed25519/, /^id_ecdsa/];
const READ_PROTECTED_IN_HOME = [
  ...['.ssh', '.aws', '.gnupg', '.config/gcloud', '.config/gh', '.azure', '.kube', '.docker/config.json', '.npmrc', '.pypirc', '.netrc', '.git-credentials'],
  ...['.gem/credentials', '.config/composer/auth.json', '.gradle/gradle.properties', '.vault-token', '.config/rclone', '.pgpass', '.my.cnf', '.mozilla', '.bash_history', '.zsh_history', '.config/sops'],
];

const WRITE_PROTECTED_IN_HOME = [
  ...['.gitconfig', '.config/git', '.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile', '.zshenv', '.zshrc', '.zprofile', '.zlogin', '.config/fish'],
  ...['.curlrc', '.config/curlrc', '.wgetrc', '.config/wget', '.vimrc', '.vim', '.config/nvim', '.config/systemd/user', '.config/autostart', 'Library/LaunchAgents'],
];
const HOOK_MANAGER_FILES = /^(?:\.npmrc|\.yarnrc(?:\.yml)?|\.pnpmfile\.c?m?js|bunfig\.toml|\.husky|\.githooks|\.git-hooks|\.hooks|\.pre-commit-config\.yaml|\.?lefthook(?:-local)?\.ya?ml|\.lefthook|\.?simple-git-hooks\.(?:json|c?js|mjs))$/;
/** Python's user site-packages: its .pth files and usercustomize.py run in every later python. */
const PYTHON_USER_STARTUP = /^\.local\/lib\/python[^/]*\/site-packages\/(?:[^/]*\.pth|usercustomize\.py)$/;

/** True when `access` to the absolute `path` touches a protected path. */
export function isProtected(path: string, access: 'read' | 'write', fixture: Pick<FixtureWorkspace, 'root' | 'home'>): boolean {
  const segments = path.split('/').filter((segment) => segment !== '');
  if (segments.some((segment) => READ_PROTECTED_NAMES.some((pattern) => pattern.test(segment)))) return true;
  if (READ_PROTECTED_IN_HOME.some((entry) => under(path, posix.join(fixture.home, entry)))) return true;
  if (/^\/proc\/[^/]+\/(?:task\/[^/]+\/)?environ$/.test(path)) return true;
  if (access === 'read') return false;
  if (segments.includes('svc.yml')) return true;
  if (/\/\.git\/(?:config|hooks)(?:\/|$)/.test(path)) return true;
  if (under(path, posix.join(fixture.root, '.svc'))) return true;
  // Hook managers' and package managers' settings (the engine's DEFAULT_WRITE_PROTECTED).
  if (segments.some((segment) => HOOK_MANAGER_FILES.test(segment))) return true;
  // Files whose content runs later as code (the engine's DEFAULT_WRITE_PROTECTED).
  if (WRITE_PROTECTED_IN_HOME.some((entry) => under(path, posix.join(fixture.home, entry)))) return true;
  if (under(path, fixture.home) && PYTHON_USER_STARTUP.test(posix.relative(fixture.home, path))) return true;
  const claude = posix.join(fixture.root, '.claude');
  return posix.dirname(path) === claude && /^settings.*\.json$/.test(posix.basename(path));
}

function under(path: string, ancestor: string): boolean {
  return path === ancestor || path.startsWith(`${ancestor}/`);
}

/**
 * A protected file at or under `path`, checked by the name the command uses and by where it really
 * leads; symlinked directories inside are entered too (each real directory once), .git and
 * node_modules are not.
 */
function protectedWithin(path: string, access: 'read' | 'write', fixture: Pick<FixtureWorkspace, 'root' | 'home'>, visited = new Set<string>()): boolean {
  if (isProtected(path, access, fixture)) return true;
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return false;
  }
  if (isProtected(real, access, fixture)) return true;
  if (!lstatSync(real).isDirectory() || visited.has(real)) return false;
  visited.add(real);
  return readdirSync(real).some((name) => name !== '.git' && name !== 'node_modules' && protectedWithin(posix.join(path, name), access, fixture, visited));
}

/** The decision the rules give for these operations (corpus paths). */
export function decideByRules(operations: readonly CorpusOperation[], fixture: Pick<FixtureWorkspace, 'root' | 'home'>): CorpusDecision {
  let dynamic = false;
  for (const operation of operations) {
    if (operation.dynamic !== undefined || operation.path === undefined) {
      dynamic = true;
      continue;
    }
    const access = operation.kind === 'read' || operation.kind === 'execute' ? 'read' : 'write';
    for (const path of [operation.path, operation.realPath]) {
      if (path === undefined) continue;
      const absolute = fromCorpusPath(path, fixture);
      // A tree written into a repository's .git writes its config and hooks.
      if (operation.recursive && access === 'write' && absolute.endsWith('/.git')) return 'deny';
      if (operation.recursive ? protectedWithin(absolute, access, fixture) : isProtected(absolute, access, fixture)) return 'deny';
    }
  }
  return dynamic ? 'step_up' : 'no_opinion';
}
