import { posix } from 'node:path';
import { parseArguments, staticWord } from '../argument-parser.js';
import type { CommandContext } from '../command-context.js';
import { argumentsOf } from './operands.js';

/**
 * Commands whose job is to print a credential that a protected file or store holds: `gh auth
 * token` prints the token kept in ~/.config/gh, `aws configure get aws_secret_access_key` the key
 * in ~/.aws, `kubectl config view --raw` the kubeconfig's keys, `gpg --export-secret-keys` the
 * private keys in ~/.gnupg, `gcloud auth print-access-token` a bearer token made from the
 * credentials in ~/.config/gcloud. No path is named, yet each is a read of the store, reported
 * where the program keeps it by default (from the home directory; dynamic when the home directory
 * is not known). Commands that only use a credential (`aws s3 ls`, `gh pr list`) are not this.
 */
interface CredentialPrinter {
  /** The subcommand words, from the first operand on. */
  subcommand: readonly string[];
  /** When set, the command prints the credential only with one of these flags. */
  flags?: readonly string[];
  /** Where the credential is kept, relative to the home directory. */
  store: string;
}

interface ProgramPrinters {
  /** The program's options that take a value, so that `aws --profile prod configure get …` is recognised. */
  short?: string;
  long?: readonly string[];
  printers: readonly CredentialPrinter[];
}

const AWS_PRINTS = ['configure', 'ecr get-login-password', 'ecr-public get-login-password', 'sts get-session-token', 'sts assume-role', 'sts assume-role-with-saml', 'sts assume-role-with-web-identity', 'sts get-federation-token', 'codeartifact get-authorization-token', 'eks get-token', 'rds generate-db-auth-token', 'sso get-role-credentials'];
const KUBECTL: ProgramPrinters = {
  short: 'ns',
  long: ['namespace', 'context', 'cluster', 'user', 'kubeconfig', 'server', 'token', 'as', 'as-group', 'request-timeout'],
  printers: [{ subcommand: ['config', 'view'], flags: ['--raw'], store: '.kube' }],
};

const GPG: ProgramPrinters = { printers: [{ subcommand: [], flags: ['--export-secret-keys', '--export-secret-subkeys'], store: '.gnupg' }] };

const PRINTERS: ReadonlyMap<string, ProgramPrinters> = new Map([
  [
    'gh',
    {
      short: 'R',
      long: ['repo', 'hostname'],
      printers: [
        { subcommand: ['auth', 'token'], store: '.config/gh' },
        { subcommand: ['auth', 'status'], flags: ['-t', '--show-token'], store: '.config/gh' },
      ],
    },
  ],
  ['aws', { long: ['profile', 'region', 'output', 'endpoint-url', 'query', 'ca-bundle', 'color', 'cli-read-timeout', 'cli-connect-timeout', 'cli-binary-format'], printers: AWS_PRINTS.map((words) => ({ subcommand: words.split(' '), store: '.aws' })) }],
  [
    'gcloud',
    {
      long: ['project', 'account', 'configuration', 'format', 'verbosity', 'impersonate-service-account', 'billing-project', 'flags-file', 'flatten'],
      printers: [
        { subcommand: ['auth', 'print-access-token'], store: '.config/gcloud' },
        { subcommand: ['auth', 'print-identity-token'], store: '.config/gcloud' },
        { subcommand: ['auth', 'application-default', 'print-access-token'], store: '.config/gcloud' },
        { subcommand: ['config', 'config-helper'], store: '.config/gcloud' },
      ],
    },
  ],
  ['az', { short: 'og', long: ['subscription', 'output', 'query', 'resource-group'], printers: [{ subcommand: ['account', 'get-access-token'], store: '.azure' }] }],
  ['kubectl', KUBECTL],
  ['oc', KUBECTL],
  ['gpg', GPG],
  ['gpg2', GPG],
  // pass prints what it keeps (`pass name`, `pass show`, `pass otp`, `pass grep`): all of it is the store.
  ['pass', { printers: [{ subcommand: [], store: '.password-store' }] }],
  ['secret-tool', { printers: [{ subcommand: ['lookup'], store: '.local/share/keyrings' }, { subcommand: ['search'], store: '.local/share/keyrings' }] }],
  [
    'security',
    {
      printers: [
        { subcommand: ['find-generic-password'], flags: ['-w', '-g'], store: 'Library/Keychains' },
        { subcommand: ['find-internet-password'], flags: ['-w', '-g'], store: 'Library/Keychains' },
        { subcommand: ['dump-keychain'], flags: ['-d'], store: 'Library/Keychains' },
      ],
    },
  ],
  [
    'op',
    {
      long: ['account', 'vault', 'format', 'session', 'config'],
      printers: [{ subcommand: ['read'], store: '.config/op' }, { subcommand: ['inject'], store: '.config/op' }, { subcommand: ['item', 'get'], store: '.config/op' }],
    },
  ],
  ['vault', { printers: ['read', 'kv get', 'print token', 'token lookup'].map((words) => ({ subcommand: words.split(' '), store: '.vault-token' })) }],
  ['heroku', { short: 'a', long: ['app'], printers: [{ subcommand: ['auth:token'], store: '.netrc' }] }],
  // sops decrypts with the age keys it keeps in ~/.config/sops (or a KMS or PGP key): the output is the secrets.
  [
    'sops',
    {
      long: ['output', 'input-type', 'output-type', 'extract', 'config', 'age', 'kms', 'pgp', 'gcp-kms', 'azure-kv', 'hc-vault-transit'],
      printers: [{ subcommand: [], flags: ['-d', '--decrypt'], store: '.config/sops' }, { subcommand: ['decrypt'], store: '.config/sops' }, { subcommand: ['exec-env'], store: '.config/sops' }, { subcommand: ['exec-file'], store: '.config/sops' }],
    },
  ],
  ...['desktop', 'secretservice', 'pass', 'osxkeychain', 'wincred', 'ecr-login', 'gcloud'].map((helper): [string, ProgramPrinters] => [`docker-credential-${helper}`, { printers: [{ subcommand: ['get'], store: '.docker/config.json' }] }]),
]);

/** Reports the read of a credential store the command prints from, if it is one of those above. */
export function reportPrintedCredentials(context: CommandContext): void {
  const program = PRINTERS.get(context.program);
  if (program === undefined) return;
  const parsed = parseArguments(argumentsOf(context), { ...(program.short !== undefined && { short: program.short }), ...(program.long !== undefined && { long: program.long }) });
  const operands = parsed.operands.map((word) => word.value);
  const printer = program.printers.find(({ subcommand, flags }) => subcommand.every((word, index) => operands[index] === word) && (flags === undefined || parsed.has(...flags)));
  if (printer === undefined) return;
  const via = `${[context.program, ...printer.subcommand].join(' ')} (prints a credential kept in ~/${printer.store})`;
  if (context.home === undefined) context.dynamic('read', `~/${printer.store}`, 'variable', via);
  else context.file('read', staticWord(posix.join(context.home, printer.store)), via);
}
