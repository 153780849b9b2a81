import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { SvcError } from '../../errors.js';
import { printJson, printLine } from '../output.js';

interface KeysOptions {
  config?: string;
  json?: boolean;
}

interface KeyPlaces {
  keysDir: string;
  trustFile: string;
  /** Only present when a config was read: new ActionPass key names need it. */
  tenant: string | undefined;
  /** Where the agent works; reviewer keys must stay out of it. */
  workspaceDir: string;
}

const CONFIG_HELP = 'svc.yml to read keys.dir, keys.trust and tenant from (default: ./svc.yml)';

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * keys.dir, keys.trust and tenant from `--config`, else from ./svc.yml when present, else the
 * defaults (which only commands that create no ActionPass key can do with: they need the tenant).
 */
async function keyPlaces(options: KeysOptions, needTenant: boolean): Promise<KeyPlaces> {
  // Loaded on use: start-up stays fast for the other commands.
  const { DEFAULT_CONFIG_FILE, loadConfig, resolveFromConfig } = await import('../../config/load-config.js');
  const configFile = options.config ?? (needTenant || (await exists(DEFAULT_CONFIG_FILE)) ? DEFAULT_CONFIG_FILE : undefined);
  if (configFile === undefined) {
    return { keysDir: path.resolve('.svc/keys'), trustFile: path.resolve('.svc/trust.json'), tenant: undefined, workspaceDir: process.cwd() };
  }
  const loaded = await loadConfig(configFile);
  return {
    keysDir: resolveFromConfig(loaded, loaded.config.keys.dir),
    trustFile: resolveFromConfig(loaded, loaded.config.keys.trust),
    tenant: loaded.config.tenant,
    workspaceDir: path.dirname(path.resolve(configFile)),
  };
}

function requireTenant(places: KeyPlaces): { keysDir: string; trustFile: string; tenant: string } {
  // keyPlaces(…, true) always reads a config, and a config always has a tenant.
  if (places.tenant === undefined) throw new SvcError('config_invalid', 'this command needs the tenant from svc.yml');
  return { keysDir: places.keysDir, trustFile: places.trustFile, tenant: places.tenant };
}

export function registerKeys(program: Command): void {
  const keys = program
    .command('keys')
    .description('ActionPass signing keys, reviewer keys and the trust store (.svc/trust.json)')
    .addHelpText('after', `
ActionPass keys sign the passes svc issues; their private keys live in keys.dir (.svc/keys, mode
0600). Reviewer keys sign approval artifacts; their private keys live outside the workspace, in
$SVC_REVIEWER_KEYS_DIR, else $XDG_CONFIG_HOME/svc/reviewer-keys, else ~/.config/svc/reviewer-keys.
trust.json lists every public key with its role and any revocation. See docs/tokens.md.

Examples:
  svc keys init
  svc keys list --json
  svc keys rotate
  svc keys revoke svc.local/org:acme/pass-20261121-ab12
  svc keys add-reviewer --as user:lead@acme.example`);

  keys
    .command('list')
    .description('list the keys in the trust store, which one signs passes, and which are revoked')
    .option('--config <file>', CONFIG_HELP)
    .option('--json', 'print the result as JSON')
    .addHelpText('after', `
Status: "active" is the ActionPass key that signs new passes (the newest unrevoked one whose
private key is present), "trusted" verifies but does not sign, "revoked" is refused everywhere.

Example:
  svc keys list --json`)
    .action(async (options: KeysOptions) => {
      const places = await keyPlaces(options, false);
      const { passKeyCandidates, privateKeyPresent, reviewerKeysDir } = await import('../../actionpass/key-ring.js');
      const { readTrustStore } = await import('../../actionpass/trust-store.js');
      const store = await readTrustStore(places.trustFile);
      const reviewerDir = reviewerKeysDir();
      let active: string | undefined;
      for (const candidate of passKeyCandidates(store)) {
        if (await privateKeyPresent(places.keysDir, candidate.name)) {
          active = candidate.name;
          break;
        }
      }
      const rows = await Promise.all(
        store.keys.map(async (entry) => ({
          ...entry,
          status: entry.revokedAt !== undefined ? 'revoked' : entry.name === active ? 'active' : 'trusted',
          privateKey: await privateKeyPresent(entry.role === 'reviewer' ? reviewerDir : places.keysDir, entry.name),
        })),
      );
      if (options.json) {
        printJson({ trustFile: places.trustFile, keysDir: places.keysDir, reviewerKeysDir: reviewerDir, keys: rows });
        return;
      }
      printLine(`trust store ${places.trustFile}: ${rows.length} ${rows.length === 1 ? 'key' : 'keys'}`);
      if (rows.length === 0) printLine('  no keys yet; run svc keys init');
      for (const row of rows) {
        const who = row.reviewer !== undefined ? ` for ${row.reviewer}` : '';
        const when = row.revokedAt !== undefined ? `revoked ${row.revokedAt}` : `added ${row.addedAt}`;
        printLine(`  ${row.status.padEnd(8)} ${row.role.padEnd(10)} ${row.name}${who}  ${when}${row.privateKey ? '' : '  (private key not on this machine)'}`);
      }
    });

  keys
    .command('init')
    .description('create the ActionPass key and trust.json if they do not exist (safe to run again)')
    .option('--config <file>', CONFIG_HELP)
    .option('--json', 'print the result as JSON')
    .addHelpText('after', `
Needs svc.yml for the tenant, which is part of the key name. The proxy does the same on start.

Example:
  svc keys init --config svc.yml`)
    .action(async (options: KeysOptions) => {
      const places = requireTenant(await keyPlaces(options, true));
      const { loadPassSigner } = await import('../../actionpass/key-ring.js');
      const { key, created } = await loadPassSigner(places);
      const publicKey = key.publicKey.toString('base64');
      if (options.json) {
        printJson({ created, key: { name: key.name, publicKey }, keysDir: places.keysDir, trustFile: places.trustFile });
        return;
      }
      printLine(created ? `created ActionPass key ${key.name}` : `ActionPass key ${key.name} already exists`);
      printLine(`  public key   ${publicKey}`);
      printLine(`  private key  ${places.keysDir} (mode 0600)`);
      printLine(`  trust store  ${places.trustFile}`);
    });

  keys
    .command('rotate')
    .description('make a new ActionPass key the active one; older keys keep verifying until revoked')
    .option('--config <file>', CONFIG_HELP)
    .option('--json', 'print the result as JSON')
    .addHelpText('after', `
Passes signed by the previous key keep verifying until they expire (actionpass.ttlSeconds) or
the key is revoked with svc keys revoke. A running proxy signs with the new key after a restart.

Example:
  svc keys rotate && svc keys revoke <previous key name>`)
    .action(async (options: KeysOptions) => {
      const places = requireTenant(await keyPlaces(options, true));
      const { rotatePassKey } = await import('../../actionpass/key-ring.js');
      const { key, trust } = await rotatePassKey(places);
      const stillTrusted = trust
        .entries()
        .filter((entry) => entry.role === 'actionpass' && entry.revokedAt === undefined && entry.name !== key.name)
        .map((entry) => entry.name);
      const publicKey = key.publicKey.toString('base64');
      if (options.json) {
        printJson({ key: { name: key.name, publicKey }, stillTrusted, trustFile: places.trustFile });
        return;
      }
      printLine(`ActionPass key ${key.name} is now active`);
      printLine(`  public key   ${publicKey}`);
      if (stillTrusted.length > 0) printLine(`  still trusted for verification until revoked: ${stillTrusted.join(', ')}`);
    });

  keys
    .command('revoke')
    .description('revoke a key: tokens it signed are refused from now on')
    .argument('<name>', 'the key name, as svc keys list shows it')
    .option('--config <file>', CONFIG_HELP)
    .option('--json', 'print the result as JSON')
    .addHelpText('after', `
Revocation is recorded in trust.json and cannot be undone; revoking a revoked key changes
nothing. Revoking the active ActionPass key makes svc create a new one when it next needs one.

Example:
  svc keys revoke reviewer/user:lead@acme.example/ab12`)
    .action(async (name: string, options: KeysOptions) => {
      const places = await keyPlaces(options, false);
      const { revokeKey } = await import('../../actionpass/key-ring.js');
      const { entry, changed } = await revokeKey(places.trustFile, name, new Date().toISOString());
      if (options.json) {
        printJson({ name: entry.name, role: entry.role, revokedAt: entry.revokedAt, changed, trustFile: places.trustFile });
        return;
      }
      printLine(changed ? `revoked ${entry.role} key ${entry.name} at ${entry.revokedAt}` : `${entry.role} key ${entry.name} was already revoked at ${entry.revokedAt}`);
    });

  keys
    .command('add-reviewer')
    .description('create a reviewer key outside the workspace and list it in trust.json')
    .requiredOption('--as <identity>', 'the reviewer, user:<email>')
    .option('--config <file>', CONFIG_HELP)
    .option('--json', 'print the result as JSON')
    .addHelpText('after', `
The private key goes to $SVC_REVIEWER_KEYS_DIR, else $XDG_CONFIG_HOME/svc/reviewer-keys, else
~/.config/svc/reviewer-keys (mode 0600), never into the workspace. svc approvals approve
--as <identity> signs with it. An agent sharing this account could still read it; real
separation needs the reviewer on another account or device.

Example:
  svc keys add-reviewer --as user:lead@acme.example`)
    .action(async (options: KeysOptions & { as: string }) => {
      const places = await keyPlaces(options, false);
      const { addReviewer } = await import('../../actionpass/key-ring.js');
      const { key, entry, file } = await addReviewer({ reviewer: options.as, trustFile: places.trustFile, workspaceDir: places.workspaceDir });
      if (options.json) {
        printJson({ name: key.name, reviewer: entry.reviewer, publicKey: entry.publicKey, file, trustFile: places.trustFile });
        return;
      }
      printLine(`created reviewer key ${key.name} for ${options.as}`);
      printLine(`  public key   ${entry.publicKey} (listed in ${places.trustFile})`);
      printLine(`  private key  ${file} (mode 0600, outside the workspace)`);
    });
}
