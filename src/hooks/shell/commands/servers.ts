import { staticWord } from '../argument-parser.js';
import type { CommandContext, CommandConvention } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { argumentsOf, shellJoin } from './operands.js';

/**
 * Programs that hand files, or a shell, to whoever connects to them. What a client then asks for
 * is decided later and elsewhere, where no hook sees it: `miniserve .` makes `.env` one request
 * away, and `ttyd bash` is a shell in a browser tab.
 */

/**
 * A static file server hands out what its words name (`darkhttpd /srv --port 80`, `miniserve -p
 * 8080 docs`, `caddy file-server --root=site`, `live-server --mount=/x:./dir`), each directory
 * with everything under it, and the working directory when no word names anything. Every word is
 * looked at rather than a parse of each server's options: a value taken for the directory, or
 * the directory taken for a value, would otherwise leave the served tree unread. A word known
 * only at run time could be the directory.
 */
function serveNamedTrees(context: CommandContext, words: readonly Word[]): void {
  const via = `${context.program} (served)`;
  let named = false;
  for (const word of words) {
    if (word.value === undefined) {
      context.dynamic('read', word.text, word.reason, via);
      named = true;
      continue;
    }
    for (const candidate of pathsInWord(word.value)) {
      const kind = context.kindOf(staticWord(candidate));
      if (kind === undefined) continue;
      context.file('read', staticWord(candidate), via, kind === 'directory' ? { recursive: true } : {});
      named = true;
    }
  }
  if (!named) context.file('read', staticWord('.'), `${context.program} (served working directory)`, { recursive: true });
}

/** The word, the value of `--name=value`, and what follows the last `:` (`--mount=/route:./dir`). */
function pathsInWord(value: string): string[] {
  const text = value.startsWith('-') ? value.slice(value.indexOf('=') + 1) : value;
  if (text === '' || text.startsWith('-')) return [];
  const colon = text.lastIndexOf(':');
  return colon === -1 || colon === text.length - 1 ? [text] : [text, text.slice(colon + 1)];
}

const FILE_SERVER: CommandConvention = { handler: (context) => serveNamedTrees(context, argumentsOf(context)) };

/**
 * A program whose subcommand serves (`caddy file-server`, `twistd … web --path dir`, `jupyter
 * lab`): the words after it go to `serve`; its other subcommands run a configuration or do
 * work svc does not follow here.
 */
function serverSubcommand(subcommands: readonly string[], serve: (context: CommandContext, words: readonly Word[]) => void): CommandConvention {
  return {
    handler(context) {
      const words = argumentsOf(context);
      const at = words.findIndex((word) => word.value !== undefined && subcommands.includes(word.value));
      if (at !== -1) serve(context, words.slice(at + 1));
    },
  };
}

/**
 * Web terminals, notebooks and editors, and remote shell servers: whoever connects runs what
 * they like, so what this command does is known only when someone does.
 */
function runsWhatClientsAsk(context: CommandContext): void {
  context.dynamic('execute', shellJoin(context.argv), 'interpreter_code', `${context.program} (runs what whoever connects asks for)`);
}

const REMOTE_CODE_SERVER: CommandConvention = { handler: runsWhatClientsAsk };

/**
 * netcat's `-e prog` (`-e /bin/sh`: a shell for whoever connects) and `-c cmd`, ncat's `--exec`,
 * `--sh-exec` and `--lua-exec`: a program run on the connection, its input coming from the
 * network. Without them netcat only moves bytes, which redirections and pipes already show. The
 * variants disagree on which options take values (OpenBSD's `-e` and `-c` are TLS settings), so
 * any cluster holding `e` or `c` counts: a value option listed wrongly would swallow the `-e`.
 */
const NETCAT: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context);
    const end = words.findIndex((word) => word.value === '--');
    const options = end === -1 ? words : words.slice(0, end);
    const runs = options.some(({ value }) => value !== undefined && (/^-[^-]*[ec]/.test(value) || /^--(?:sh-|lua-)?exec(?:=|$)/.test(value)));
    if (!runs) return;
    context.dynamic('execute', shellJoin(context.argv), 'interpreter_code', `${context.program} (runs a program for whoever connects)`);
    // What it runs is followed too, for what it does whatever the connection sends (`--sh-exec 'cat .env'`).
    options.forEach((word, index) => {
      const glued = word.value === undefined ? undefined : /^--(?:sh-)?exec=(.*)$/s.exec(word.value)?.[1];
      const code = glued ?? (word.value !== undefined && /^(?:-[^-]*[ec]|--(?:sh-)?exec)$/.test(word.value) ? options[index + 1]?.value : undefined);
      if (code !== undefined) context.script(code, `${context.program} (program for whoever connects)`);
    });
  },
};

export const SERVERS: Record<string, CommandConvention> = {
  'http-server': FILE_SERVER,
  serve: FILE_SERVER,
  'live-server': FILE_SERVER,
  'five-server': FILE_SERVER,
  darkhttpd: FILE_SERVER,
  miniserve: FILE_SERVER,
  webfsd: FILE_SERVER,
  // busybox's httpd serves its -h directory, the working one by default.
  httpd: FILE_SERVER,
  'simple-http-server': FILE_SERVER,
  caddy: serverSubcommand(['file-server'], serveNamedTrees),
  twistd: serverSubcommand(['web'], serveNamedTrees),
  ttyd: REMOTE_CODE_SERVER,
  gotty: REMOTE_CODE_SERVER,
  websocketd: REMOTE_CODE_SERVER,
  'code-server': REMOTE_CODE_SERVER,
  openvscode: REMOTE_CODE_SERVER,
  'openvscode-server': REMOTE_CODE_SERVER,
  jupyter: serverSubcommand(['notebook', 'lab', 'server', 'nbclassic'], runsWhatClientsAsk),
  'jupyter-notebook': REMOTE_CODE_SERVER,
  'jupyter-lab': REMOTE_CODE_SERVER,
  'jupyter-server': REMOTE_CODE_SERVER,
  sshd: REMOTE_CODE_SERVER,
  dropbear: REMOTE_CODE_SERVER,
  nc: NETCAT,
  netcat: NETCAT,
  ncat: NETCAT,
};
