import { posix } from 'node:path';
import { staticWord } from '../argument-parser.js';
import type { CommandContext, FileOptions } from '../command-context.js';
import type { FileOperationKind } from '../shell-analysis.js';
import type { Word } from '../word-expansion.js';

/** Helpers shared by the command handlers. */

/** The words after the program name. */
export function argumentsOf(context: CommandContext): readonly Word[] {
  return context.argv.slice(1);
}

export function reportEach(context: CommandContext, kind: FileOperationKind, words: readonly Word[], via: string, options?: FileOptions): void {
  for (const word of words) context.file(kind, word, via, options);
}

const URL_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

export function isUrl(value: string): boolean {
  return URL_SCHEME.test(value);
}

/**
 * `host:path`, `user@host:path`, `host::module`, `rsync://…`: a file on another machine (scp,
 * rsync). A colon after a slash (`./a:b`) is part of a local name, as those tools decide too.
 */
export function isRemotePath(value: string): boolean {
  if (isUrl(value)) return true;
  const colon = value.indexOf(':');
  if (colon <= 0) return false;
  const slash = value.indexOf('/');
  return slash === -1 || colon < slash;
}

/**
 * The file a remote `[user@]host:path` names, taken as if it were on this machine, in the home
 * directory the remote side starts in: the host may be this one (`scp localhost:.aws/credentials`),
 * and a secret copied from another host is a secret too. Undefined for a local path, a URL, an
 * rsync daemon module (`host::module`), or when the home directory is not known.
 */
export function remoteFileHere(context: CommandContext, value: string): Word | undefined {
  if (!isRemotePath(value)) return undefined;
  let path: string;
  if (isUrl(value)) {
    // `scp://[user@]host[:port]/path`, `sftp://…`: the path after the host, from the home directory.
    const url = /^(?:scp|sftp):\/\/[^/]*\/?(.*)$/i.exec(value);
    if (url === null) return undefined;
    path = url[1] ?? '';
  } else {
    // `[::1]:path`, `user@[fe80::1]:path`: an IPv6 host is bracketed, its colons are not the separator.
    const bracket = value.indexOf(']:');
    path = value.slice(value.includes('[') && bracket !== -1 ? bracket + 2 : value.indexOf(':') + 1);
    if (path.startsWith(':')) return undefined;
  }
  // `host:'$HOME/x'`, backticks: the remote shell may expand them (scp -O, rsync's shell).
  if (/[$`]/.test(path)) return { value: undefined, text: value, reason: 'variable' };
  if (path.startsWith('/')) return staticWord(path);
  // `sudo scp host:.aws/credentials …`: whose home it is is not known, so neither is the file.
  if (context.home === undefined) return { value: undefined, text: value, reason: 'variable' };
  const relative = path === '~' ? '' : path.startsWith('~/') ? path.slice(2) : path;
  return staticWord(relative === '' ? context.home : posix.join(context.home, relative));
}

/**
 * The heuristic for programs the analysis does not know: a word that looks like a path (contains
 * `/`, starts with `.`, or names something that exists) is probably a file the program opens.
 * Words known only at run time are reported as dynamic, since they could be any path.
 */
export function looksLikePath(context: CommandContext, word: Word): boolean {
  if (word.value === undefined) return true;
  const value = word.value;
  if (value === '' || isUrl(value)) return false;
  return value.includes('/') || value.startsWith('.') || context.kindOf(word) !== undefined;
}

/**
 * The local file a `file:` URL names (`file:///p`, `file://localhost/p`, percent-decoded as curl
 * and browsers do), or undefined when the word is no file URL. A file URL with another host or
 * a malformed escape gives the URL text itself, so it stays a (harmless) read of something.
 */
export function fileUrlPath(value: string): string | undefined {
  const match = /^file:(?:\/\/(?:localhost|127\.0\.0\.1)?(?=\/)|(?=\/))(.*)$/i.exec(value);
  if (match === null) return /^file:/i.test(value) ? value : undefined;
  const path = (match[1] as string).replace(/[?#].*$/, '');
  try {
    return decodeURIComponent(path);
  } catch {
    return value;
  }
}

/**
 * A URL a client fetches: a `file:` URL is a read of that local file. `globbing`: curl expands
 * `{a,b}` and `[a-z]` in URLs itself (unless `-g`), so such a file URL could name any file.
 */
export function reportLocalUrl(context: CommandContext, word: Word, via: string, globbing = false): void {
  if (word.value === undefined) {
    // `"file://$PWD/.env"`: a local file whose path is known only at run time.
    if (/^["']?file:/i.test(word.text)) context.file('read', word, via);
    return;
  }
  const path = fileUrlPath(word.value);
  if (path === undefined) return;
  if (globbing && /[[{]/.test(path)) context.dynamic('read', word.value, 'unsupported', `${via} (URL glob)`);
  else context.file('read', staticWord(path), via);
}

/**
 * Programs that expand `@file` arguments into the words the file holds (GCC, Clang, javac,
 * java, kotlinc, binutils, rustc, …): an error about an unknown option then prints the file's
 * content. An unknown program gets the same reading for `@word`s that look like paths.
 */
export function responseFile(word: Word): Word | undefined {
  if (word.value === undefined) return word.text.startsWith('@') || word.text.startsWith('"@') ? word : undefined;
  return word.value.length > 1 && word.value.startsWith('@') ? staticWord(word.value.slice(1)) : undefined;
}

/** Reports the path-like arguments of a program the analysis has no conventions for (see looksLikePath). */
export function reportPathLikeArguments(context: CommandContext, words: readonly Word[], via: string): void {
  for (const word of words) {
    const value = word.value;
    if (fileUrlPath(value ?? word.text.replace(/^["']/, '')) !== undefined) {
      reportLocalUrl(context, word, via);
      continue;
    }
    // `@./args`, `@/tmp/x`, `@.env`, `@file` that exists; not a package scope (`@types/node`).
    const file = responseFile(word);
    if (file !== undefined && file.value !== undefined) {
      if (/^[./~]/.test(file.value) || context.kindOf(file) !== undefined) context.file('read', file, `${via} (@file)`);
      continue;
    }
    if (value !== undefined && value.startsWith('-')) {
      // `--config=./x.json`: the value of an option given with `=` can be a path too.
      const equals = value.indexOf('=');
      if (equals > 0) {
        const optionValue = staticWord(value.slice(equals + 1));
        if (looksLikePath(context, optionValue)) context.file('read', optionValue, via);
      }
      continue;
    }
    if (looksLikePath(context, word)) context.file('read', word, via);
  }
}

/**
 * Where a copy (cp, mv, install, ln, scp) of `source` into `destination` lands: inside it when
 * the destination is an existing directory (unless `-T`), else the destination itself.
 */
export function landingPlace(context: CommandContext, source: Word, destination: Word, intoDirectory: boolean): Word {
  if (destination.value === undefined || source.value === undefined) return destination;
  if (!intoDirectory && !destination.value.endsWith('/')) return destination;
  const name = posix.basename(source.value.replace(/\/+$/, ''));
  if (name === '' || name === '.' || name === '..') return destination;
  return staticWord(posix.join(destination.value, name));
}

/** Words joined back into one line of shell code, quoted so that each stays one word. */
export function shellJoin(words: readonly Word[]): string {
  return words.map((word) => (word.value === undefined ? word.text : quoteWord(word.value))).join(' ');
}

function quoteWord(value: string): string {
  if (value !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A word that stands for input only known when the command runs (`xargs` reading its arguments from stdin). */
export function runtimeInput(text: string): Word {
  return { value: undefined, text, reason: 'command_substitution' };
}

/**
 * The dotenv files a program loads by itself from `directory` (default: the working directory),
 * as its documentation lists them: each one that exists is a read. Only existing ones, so that a
 * project without a `.env` is not refused every `bun test` for a file nobody can read.
 */
export function reportEnvFiles(context: CommandContext, names: readonly string[], via: string, directory?: Word): void {
  if (directory !== undefined && directory.value === undefined) {
    context.dynamic('read', `${directory.text}/.env`, directory.reason, via);
    return;
  }
  for (const name of names) {
    const file = staticWord(directory === undefined ? name : posix.join(directory.value as string, name));
    if (context.kindOf(file) !== undefined) context.file('read', file, via);
  }
}

/** `.env`, the file every dotenv loader reads. */
export const DOTENV_FILE = ['.env'];
