import { posix } from 'node:path';
import { parseArguments, staticWord, type ParsedArguments } from '../argument-parser.js';
import type { CommandContext, CommandConvention } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { argumentsOf, isUrl, remoteFileHere, reportEach, reportLocalUrl } from './operands.js';

/**
 * Programs that move files over the network or hold keys: what they upload is a read (that is
 * how a secret leaves the machine: `curl --data @.env`), what they download is a write, and
 * key or credential files they are pointed at (`ssh -i`, `curl --key`, `curl -n` for ~/.netrc)
 * are reads.
 */

// `-q` (skip .curlrc) and `-h` are flags: as value-taking they would swallow `-T .env`.
const CURL_VALUE_SHORT = 'oTdFKbcDeEHuUxXAyYzCwmrtQP';
const CURL_VALUE_LONG = [
  'output', 'upload-file', 'data', 'data-ascii', 'data-binary', 'data-raw', 'data-urlencode', 'json', 'form', 'form-string', 'config', 'cookie', 'cookie-jar', 'dump-header',
  'cacert', 'capath', 'cert', 'key', 'pubkey', 'crlfile', 'netrc-file', 'trace', 'trace-ascii', 'stderr', 'header', 'user', 'proxy-user', 'proxy', 'request', 'user-agent',
  'referer', 'url', 'output-dir', 'max-time', 'connect-timeout', 'retry', 'range', 'time-cond', 'write-out', 'proxy-cacert', 'proxy-cert', 'proxy-key', 'etag-save',
  'etag-compare', 'hsts', 'alt-svc', 'libcurl', 'ciphers', 'resolve', 'connect-to', 'interface', 'limit-rate', 'max-filesize', 'oauth2-bearer', 'variable', 'expand-url',
  'aws-sigv4', 'ssl-sessions', 'ech', 'cert-type', 'key-type', 'mail-from', 'mail-rcpt', 'quote', 'ftp-port', 'telnet-option', 'retry-delay', 'retry-max-time', 'speed-limit',
  'speed-time', 'local-port', 'dns-servers', 'doh-url', 'keepalive-time', 'unix-socket', 'abstract-unix-socket', 'preproxy', 'socks4', 'socks4a', 'socks5', 'socks5-hostname',
  'proxy-header', 'url-query', 'pinnedpubkey', 'proxy-pinnedpubkey', 'random-file', 'egd-file', 'proxy-crlfile', 'proxy-capath', 'tls13-ciphers', 'proxy-ciphers', 'curves',
];

const CURL: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: CURL_VALUE_SHORT, long: CURL_VALUE_LONG });
    reportEach(context, 'write', parsed.values('-o', '--output', '-c', '--cookie-jar', '-D', '--dump-header', '--trace', '--trace-ascii', '--stderr', '--etag-save', '--libcurl', '--hsts', '--alt-svc'), 'curl output file');
    reportEach(context, 'read', parsed.values('--cacert', '--cert', '-E', '--key', '--pubkey', '--crlfile', '--netrc-file', '--proxy-cacert', '--proxy-cert', '--proxy-key', '--etag-compare', '--random-file', '--egd-file', '--proxy-crlfile'), 'curl option file');
    for (const pin of parsed.values('--pinnedpubkey', '--proxy-pinnedpubkey')) if (pin.value === undefined || !pin.value.startsWith('sha256//')) context.file('read', pin, 'curl --pinnedpubkey file');
    // `-T` globs like a URL: `-T '{.env}'` and `-T '.e[n-o]v'` upload .env, whatever the word says.
    const globbing = !parsed.has('-g', '--globoff');
    for (const upload of parsed.values('-T', '--upload-file')) {
      if (globbing && upload.value !== undefined && /[[{]/.test(upload.value)) context.dynamic('read', upload.value, 'unsupported', 'curl --upload-file (glob)');
      else context.file('read', upload, 'curl --upload-file');
    }
    // A config file is options in another syntax (`upload-file = .env`, `data = @.env`): what it
    // makes curl read is known only when curl reads it.
    for (const config of parsed.values('-K', '--config')) {
      if (config.value !== '-') context.file('read', config, 'curl --config');
      context.dynamic('read', `files the options in ${config.value ?? config.text} may name`, 'unsupported', 'curl --config');
    }
    // -b NAME=VALUE is a cookie; -b FILE reads cookies from a file.
    for (const cookie of parsed.values('-b', '--cookie')) if (cookie.value === undefined || !cookie.value.includes('=')) context.file('read', cookie, 'curl --cookie file');
    for (const data of parsed.values('-d', '--data', '--data-ascii', '--data-binary', '--data-urlencode', '--json')) uploadedFile(context, data, /^(?:[^=@]*=)?@(.+)$/s, 'curl --data @file');
    // `--data-urlencode name@file` and `--url-query [+]name@file` read the file; so does `--variable name@file` (its `[range]` included).
    for (const data of parsed.values('--data-urlencode', '--url-query', '--variable')) uploadedFile(context, data, /^\+?[^=@]*@(.+)$/s, 'curl name@file');
    for (const form of parsed.values('-F', '--form')) {
      uploadedFile(context, form, /^[^=]*=[@<]([^;]+)/s, 'curl --form @file');
      // `-F 'name=value;headers=@file'`: the part's headers come from a file.
      uploadedFile(context, form, /;headers=[@<]([^;]+)/s, 'curl --form headers=@file');
    }
    // `-H @file` sends the file's lines as headers; `-w @file` prints it as the output format.
    for (const text of parsed.values('-H', '--header', '--proxy-header', '-w', '--write-out', '--url')) if (text.value !== '@-') uploadedFile(context, text, /^@(.+)$/s, 'curl @file argument');
    if (parsed.has('-n', '--netrc', '--netrc-optional')) homeFile(context, '.netrc', 'curl --netrc');
    // `curl file:///…/.env` prints a local file.
    for (const url of [...parsed.operands, ...parsed.values('--url')]) reportLocalUrl(context, url, 'curl file: URL', !parsed.has('-g', '--globoff'));
    // -O saves under the URL's file name, in --output-dir or here.
    if (parsed.has('-O', '--remote-name', '--remote-name-all')) {
      const directory = parsed.last('--output-dir');
      for (const url of [...parsed.operands, ...parsed.values('--url')]) {
        const name = url.value !== undefined ? remoteName(url.value) : undefined;
        if (name === undefined) continue;
        context.file('write', directory?.value !== undefined ? staticWord(posix.join(directory.value, name)) : staticWord(name), 'curl -O');
      }
    }
  },
};

/** A file the program finds in HOME by itself (`curl -n` reads ~/.netrc); dynamic when HOME was reassigned. */
function homeFile(context: CommandContext, relative: string, via: string): void {
  if (context.home === undefined) context.dynamic('read', `$HOME/${relative}`, 'variable', via);
  else context.file('read', staticWord(posix.join(context.home, relative)), via);
}

/** A `--data @file` style value: the file after `@` is read (`@-` is standard input). */
function uploadedFile(context: CommandContext, value: Word, pattern: RegExp, via: string): void {
  if (value.value === undefined) {
    // `--data "$X"` sends a value; `--data @"$F"` would be a whole dynamic word starting with @.
    if (value.text.startsWith('@') || value.text.startsWith('"@')) context.file('read', value, via);
    return;
  }
  const match = pattern.exec(value.value);
  if (match?.[1] !== undefined) context.file('read', staticWord(match[1]), via);
}

/** One wgetrc command given with `-e`: `name = value`, a file read or written, or a program run. */
function wgetrcCommand(context: CommandContext, command: Word): void {
  if (command.value === undefined) {
    context.dynamic('read', command.text, command.reason, 'wget --execute');
    return;
  }
  const match = /^\s*([A-Za-z_-]+)\s*=\s*(.*?)\s*$/s.exec(command.value);
  const name = match?.[1]?.replace(/[_-]/g, '').toLowerCase();
  const value = match?.[2];
  if (name === undefined || value === undefined || value === '') return;
  if (WGETRC_READS.has(name)) context.file('read', staticWord(value), `wget -e ${name}`);
  if (WGETRC_WRITES.has(name)) context.file('write', staticWord(value), `wget -e ${name}`);
  if (WGETRC_PROGRAMS.has(name)) context.file('execute', staticWord(value), `wget -e ${name}`, { runner: 'kernel' });
}

function remoteName(url: string): string | undefined {
  const path = url.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]*/, '').replace(/[?#].*$/, '');
  const name = posix.basename(path);
  return name === '' || name === '.' || name === '..' ? undefined : name;
}

const WGET_VALUE_SHORT = 'OoaiPeAURDIXlQtTwUB';
const WGET_VALUE_LONG = [
  'output-document', 'output-file', 'append-output', 'input-file', 'directory-prefix', 'execute', 'accept', 'reject', 'user-agent', 'domains', 'include-directories',
  'exclude-directories', 'level', 'quota', 'tries', 'timeout', 'wait', 'base', 'post-file', 'post-data', 'body-file', 'body-data', 'method', 'header', 'user', 'password',
  'http-user', 'http-password', 'load-cookies', 'save-cookies', 'certificate', 'private-key', 'ca-certificate', 'ca-directory', 'config', 'referer', 'limit-rate',
  'rejected-log', 'warc-file', 'default-page', 'restrict-file-names', 'backups', 'bind-address', 'dns-timeout', 'connect-timeout', 'read-timeout', 'waitretry',
  'use-askpass', 'crl-file', 'hsts-file',
];

/**
 * wgetrc commands (`-e post_file=.env`, as in a wgetrc file) that name a file: read, written, or a
 * program wget runs. Names are compared without `_` and `-`, in lower case, as wget does.
 */
const WGETRC_READS = new Set(['input', 'postfile', 'bodyfile', 'loadcookies', 'certificate', 'privatekey', 'cacertificate', 'crlfile', 'hstsfile']);
const WGETRC_WRITES = new Set(['outputdocument', 'logfile', 'savecookies', 'warcfile', 'rejectedlog', 'hstsfile']);
const WGETRC_PROGRAMS = new Set(['useaskpass']);

/** wget: downloads are writes (named by -O, else the URL's file name under -P); uploads and key files reads. */
const WGET: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: WGET_VALUE_SHORT, long: WGET_VALUE_LONG });
    reportEach(context, 'write', parsed.values('-o', '--output-file', '-a', '--append-output', '--save-cookies', '--rejected-log', '--warc-file'), 'wget output file');
    reportEach(context, 'read', parsed.values('-i', '--input-file', '--post-file', '--body-file', '--load-cookies', '--certificate', '--private-key', '--ca-certificate', '--crl-file', '--hsts-file'), 'wget option file');
    reportEach(context, 'execute', parsed.values('--use-askpass'), 'wget --use-askpass program', { runner: 'kernel' });
    // A wgetrc file holds the same commands as `-e`: what it makes wget read is known only when wget reads it.
    for (const config of parsed.values('--config')) {
      context.file('read', config, 'wget --config');
      context.dynamic('read', `files the commands in ${config.value ?? config.text} may name`, 'unsupported', 'wget --config');
    }
    for (const command of parsed.values('-e', '--execute')) wgetrcCommand(context, command);
    for (const url of parsed.operands) reportLocalUrl(context, url, 'wget file: URL');
    const documents = parsed.values('-O', '--output-document');
    if (documents.length > 0) {
      reportEach(context, 'write', documents, 'wget -O');
      return;
    }
    const prefix = parsed.last('-P', '--directory-prefix');
    const recursive = parsed.has('-r', '--recursive', '-m', '--mirror');
    if (recursive) {
      context.file('write', prefix ?? staticWord('.'), 'wget -r', { recursive: true });
      return;
    }
    for (const url of parsed.operands) {
      const name = url.value !== undefined && isUrl(url.value) ? (remoteName(url.value) ?? 'index.html') : url.value !== undefined ? remoteName(url.value) : undefined;
      if (name === undefined) continue;
      context.file('write', prefix?.value !== undefined ? staticWord(posix.join(prefix.value, name)) : staticWord(name), 'wget download');
    }
  },
};

/**
 * An `-o Keyword=value` of ssh, scp or sftp, in any of the spellings ssh accepts (`=` or spaces
 * or a tab, a leading space, a quoted keyword): files it names are read, commands it gives are
 * code. Returns the RemoteCommand it sets, if any.
 */
function reportSshOption(context: CommandContext, option: Word, program: string): string | undefined {
  if (option.value === undefined) {
    context.dynamic('execute', option.text, option.reason, `${program} -o`);
    return undefined;
  }
  const match = /^\s*"?([A-Za-z0-9]+)"?\s*(?:=\s*|\s+)(.*)$/s.exec(option.value);
  const keyword = match?.[1]?.toLowerCase();
  const value = (match?.[2] ?? '').trim();
  if (keyword === undefined) return undefined;
  if (['identityfile', 'certificatefile', 'userknownhostsfile', 'globalknownhostsfile', 'identityagent', 'include'].includes(keyword)) {
    if (value.startsWith('~/')) homeFile(context, value.slice(2), `${program} -o ${match?.[1] ?? ''}`);
    else context.file('read', staticWord(value), `${program} -o ${match?.[1] ?? ''}`);
  }
  if (['proxycommand', 'localcommand', 'knownhostscommand', 'pkcs11provider', 'securitykeyprovider', 'match', 'include'].includes(keyword)) context.dynamic('execute', option.value, 'interpreter_code', `${program} -o command`);
  return keyword === 'remotecommand' ? value : undefined;
}

/** What scp and sftp take from ssh: `-i` identity files, `-F` configs, `-o` options, `-S` the ssh program to run. */
export function reportSshClientOptions(context: CommandContext, parsed: ParsedArguments, program: string): void {
  reportEach(context, 'read', parsed.values('-i'), `${program} -i identity file`);
  reportSshConfigFiles(context, parsed.values('-F'), program);
  for (const option of parsed.values('-o')) reportSshOption(context, option, program);
  reportEach(context, 'execute', parsed.values('-S'), `${program} -S program`, { runner: 'kernel' });
}

/** `-F file`: an ssh configuration is read, and its ProxyCommand, LocalCommand or `Match exec` can run anything. */
export function reportSshConfigFiles(context: CommandContext, files: readonly Word[], program: string): void {
  for (const file of files) {
    if (file.value === '/dev/null' || file.value === 'none') continue;
    context.file('read', file, `${program} -F config file`);
    context.dynamic('execute', file.value ?? file.text, 'interpreter_code', `${program} -F config file (it can run commands)`);
  }
}

/** ssh's options that take a value. */
const SSH_VALUE_OPTIONS = 'BbcDEeFIiJLlmOopQRSWw';

/**
 * ssh's words as ssh reads them: options may come before and after the destination (ssh parses
 * them again after it), `--` ends them, and the first other word after the destination starts
 * the remote command.
 */
function sshArguments(words: readonly Word[]): { options: { name: string; value?: Word }[]; destination?: Word; command: Word[] } {
  const options: { name: string; value?: Word }[] = [];
  let destination: Word | undefined;
  let optionsEnded = false;
  for (let index = 0; index < words.length; index += 1) {
    const word = words[index] as Word;
    const value = word.value;
    if (!optionsEnded && value === '--') {
      optionsEnded = true;
      continue;
    }
    if (!optionsEnded && value !== undefined && value.startsWith('-') && value.length > 1) {
      for (let letter = 1; letter < value.length; letter += 1) {
        const name = `-${value[letter]}`;
        if (!SSH_VALUE_OPTIONS.includes(value[letter] as string)) {
          options.push({ name });
          continue;
        }
        const attached = value.slice(letter + 1);
        const optionValue = attached !== '' ? { ...word, value: attached } : words[(index += 1)];
        options.push({ name, ...(optionValue !== undefined && { value: optionValue }) });
        break;
      }
      continue;
    }
    if (destination === undefined) {
      destination = word;
      continue;
    }
    return { options, destination, command: words.slice(index) };
  }
  return { options, ...(destination !== undefined && { destination }), command: [] };
}

/**
 * ssh and its helpers: identity and config files are read. The remote command is shell code the
 * login shell on the other side runs in the home directory; it is followed as if it ran here, in
 * ours: it may (`ssh localhost cat proj/.env`), and a secret on another host is a secret too.
 */
const SSH: CommandConvention = {
  handler(context) {
    const parsed = sshArguments(argumentsOf(context));
    const values = (name: string) => parsed.options.filter((option) => option.name === name && option.value !== undefined).map((option) => option.value as Word);
    reportEach(context, 'read', values('-i'), 'ssh -i identity file');
    reportEach(context, 'write', values('-E'), 'ssh -E log file');
    reportEach(context, 'execute', values('-I'), 'ssh -I PKCS#11 library');
    reportSshConfigFiles(context, values('-F'), 'ssh');
    let remoteCommand: string | undefined;
    for (const option of values('-o')) remoteCommand = reportSshOption(context, option, 'ssh') ?? remoteCommand;
    const unknown = parsed.command.find((word) => word.value === undefined);
    if (unknown !== undefined) context.dynamic('execute', parsed.command.map((word) => word.value ?? word.text).join(' '), unknown.reason, 'ssh remote command');
    // The remote side joins the words with spaces, as `sh -c` gets them.
    else if (parsed.command.length > 0) context.script(parsed.command.map((word) => word.value).join(' '), 'ssh remote command', { inHome: true });
    else if (remoteCommand !== undefined) context.script(remoteCommand, 'ssh RemoteCommand', { inHome: true });
    else if (parsed.destination !== undefined && !parsed.options.some((option) => option.name === '-N') && context.stdin.kind !== 'inherited') {
      // No command: the remote login shell reads its commands from standard input.
      const stdin = context.stdin;
      if (stdin.kind === 'text' && stdin.text !== undefined) context.script(stdin.text, 'ssh remote shell reading standard input', { inHome: true });
      else context.dynamic('execute', stdin.kind === 'file' ? (stdin.word.value ?? stdin.word.text) : 'ssh (commands from standard input)', 'interpreter_code', 'ssh remote shell reading standard input');
    }
  },
};

/**
 * sftp: `host:path` fetches that remote file (taken as if here, like scp's); a batch file
 * (`-b file`, `-b -` for standard input) holds sftp commands, whose `!command` runs a local
 * shell: code known only when sftp reads it; `-S` and `-D` are programs it runs.
 */
const SFTP: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'BbcDFiJloPRSs' });
    reportSshClientOptions(context, parsed, 'sftp');
    reportEach(context, 'execute', parsed.values('-D'), 'sftp -D server program', { runner: 'kernel' });
    for (const batch of parsed.values('-b')) {
      if (batch.value !== '-') context.file('read', batch, 'sftp -b batch file');
      context.dynamic('execute', batch.value ?? batch.text, 'interpreter_code', 'sftp -b batch (its ! commands run a local shell)');
    }
    for (const operand of parsed.operands) {
      const remote = operand.value === undefined ? undefined : remoteFileHere(context, operand.value);
      if (remote !== undefined) context.file('read', remote, 'sftp remote file');
    }
  },
};

const SSH_KEYGEN: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'abCEfFGIJjMmNnOPrSstVwZz' });
    for (const file of parsed.values('-f')) {
      context.file('read', file, 'ssh-keygen -f');
      if (!parsed.has('-y', '-l', '-F', '-B', '-e', '-R', '-D')) context.file('write', file, 'ssh-keygen -f');
    }
  },
};

const SSH_ADD: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'EeHhSt' });
    reportEach(context, 'read', parsed.operands, 'ssh-add key');
  },
};

const OPENSSL_READS = ['-in', '-key', '-inkey', '-signkey', '-CAfile', '-cert', '-certfile', '-CAkey', '-config', '-extfile', '-paramfile', '-kfile', '-rand', '-sigfile', '-verify', '-prverify', '-peerkey', '-CA', '-untrusted', '-trusted', '-crl', '-dcert', '-dkey', '-pubin', '-keyfile', '-chain'];
const OPENSSL_WRITES = ['-out', '-keyout', '-writerand', '-sess_out'];
const OPENSSL_VALUES = [
  ...OPENSSL_READS, ...OPENSSL_WRITES, '-pass', '-passin', '-passout', '-inform', '-outform', '-keyform', '-certform', '-CAform', '-days', '-subj', '-newkey', '-name', '-md',
  '-iter', '-K', '-iv', '-S', '-connect', '-servername', '-CApath', '-set_serial', '-extensions', '-reqexts', '-section', '-cipher', '-engine', '-pkeyopt', '-sigopt',
  '-algorithm', '-nameopt', '-certopt', '-addext', '-host', '-port', '-proxy', '-starttls', '-alpn', '-sess_in', '-curves', '-groups', '-sigalgs', '-verify_hostname',
];

/** openssl: `-in`, `-key`, … are reads, `-out`, `-keyout` writes; `-pass file:x` reads x. */
const OPENSSL: CommandConvention = {
  handler(context) {
    const [, ...words] = argumentsOf(context);
    const parsed = parseArguments(words, { singleDashLong: true, long: OPENSSL_VALUES.map((name) => name.slice(1)) });
    for (const option of parsed.options) {
      if (option.value === undefined) continue;
      const name = option.name.replace(/^--?/, '-');
      if (OPENSSL_READS.includes(name)) context.file('read', option.value, `openssl ${name}`);
      else if (OPENSSL_WRITES.includes(name)) context.file('write', option.value, `openssl ${name}`);
      else if ((name === '-pass' || name === '-passin' || name === '-passout') && option.value.value?.startsWith('file:')) context.file('read', staticWord(option.value.value.slice(5)), `openssl ${name}`);
    }
    reportEach(context, 'read', parsed.operands, 'openssl argument');
  },
};

/** gpg: operands are read (decrypted, imported, signed); `-o` is written. */
const GPG: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), {
      short: 'orurRuzf',
      long: ['output', 'recipient', 'local-user', 'homedir', 'passphrase-file', 'passphrase', 'keyring', 'secret-keyring', 'trustdb-name', 'default-key', 'cipher-algo', 'digest-algo', 'compress-algo', 'keyserver', 'trust-model', 'pinentry-mode', 'status-fd', 'logger-fd', 'batch-size'],
    });
    reportEach(context, 'write', parsed.values('-o', '--output'), 'gpg --output');
    reportEach(context, 'read', parsed.values('--passphrase-file', '--keyring', '--secret-keyring'), 'gpg option file');
    const homedir = parsed.last('--homedir');
    if (homedir !== undefined) context.file('read', homedir, 'gpg --homedir', { recursive: true });
    reportEach(context, 'read', parsed.operands, 'gpg argument');
  },
};

/** socat options that take a value in the next word; `-lf`, `-L`, `-W`, `-r`, `-R` name files it writes. */
const SOCAT_VALUE_OPTIONS: ReadonlySet<string> = new Set(['-b', '-t', '-T', '-L', '-W', '-lf', '-lp', '-r', '-R', '-S', '-o']);
const SOCAT_WRITE_OPTIONS: ReadonlySet<string> = new Set(['-L', '-W', '-lf', '-r', '-R']);

/** socat address types whose parameter is a file: read and written (data may flow either way), or only written. */
const SOCAT_FILE_ADDRESSES: ReadonlySet<string> = new Set(['open', 'file', 'gopen', 'pipe', 'named', 'namedpipe']);
const SOCAT_CREATE_ADDRESSES: ReadonlySet<string> = new Set(['create', 'creat']);
/** Address types whose parameter is a command line: through a shell (system, shell) or run directly (exec). */
const SOCAT_COMMAND_ADDRESSES: ReadonlySet<string> = new Set(['system', 'shell', 'exec']);

/**
 * socat [options] ADDRESS ADDRESS: each address is `TYPE:parameter[,option…]` (`OPEN:.env`,
 * `CREATE:svc.yml`, `SYSTEM:'cat .env'`), or a bare path (GOPEN). A file address is read and
 * written (socat copies both ways), CREATE written; a command is followed as shell code when it
 * is plain text, and is dynamic code when socat's own quoting or option commas are in it.
 */
const SOCAT: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context);
    for (let index = 0; index < words.length; index += 1) {
      const word = words[index] as Word;
      const value = word.value;
      if (value !== undefined && value.startsWith('-') && value !== '-') {
        if (!SOCAT_VALUE_OPTIONS.has(value)) continue;
        const file = words[index + 1];
        if (file !== undefined && SOCAT_WRITE_OPTIONS.has(value)) context.file('write', file, `socat ${value}`);
        index += 1;
        continue;
      }
      socatAddress(context, word);
    }
  },
};

function socatAddress(context: CommandContext, word: Word): void {
  const value = word.value;
  if (value === undefined) {
    context.dynamic('execute', word.text, word.reason, 'socat address');
    return;
  }
  const colon = value.indexOf(':');
  const type = colon === -1 ? '' : value.slice(0, colon).toLowerCase();
  const parameter = colon === -1 ? value : value.slice(colon + 1);
  if (SOCAT_COMMAND_ADDRESSES.has(type)) {
    if (/[,'"\\]/.test(parameter)) context.dynamic('execute', parameter, 'interpreter_code', `socat ${type.toUpperCase()}:`);
    else context.script(parameter, `socat ${type.toUpperCase()}:`);
    return;
  }
  const path = parameter.split(',')[0] ?? '';
  if (path === '') return;
  if (SOCAT_CREATE_ADDRESSES.has(type)) context.file('write', staticWord(path), 'socat CREATE:');
  else if (SOCAT_FILE_ADDRESSES.has(type) || (colon === -1 && value.includes('/'))) {
    context.file('read', staticWord(path), `socat ${type === '' ? 'GOPEN' : type.toUpperCase()}:`);
    context.file('write', staticWord(path), `socat ${type === '' ? 'GOPEN' : type.toUpperCase()}:`);
  }
}

export const NETWORK_CLIENTS: Record<string, CommandConvention> = {
  socat: SOCAT,
  curl: CURL,
  wget: WGET,
  ssh: SSH,
  sftp: SFTP,
  'ssh-keygen': SSH_KEYGEN,
  'ssh-add': SSH_ADD,
  'ssh-copy-id': { handler: (context) => reportEach(context, 'read', parseArguments(argumentsOf(context), { short: 'ipoF' }).values('-i'), 'ssh-copy-id -i') },
  openssl: OPENSSL,
  gpg: GPG,
  gpg2: GPG,
};
