import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { isMap, isNode, isScalar, LineCounter, parseDocument, type Document, type Node, type YAMLError } from 'yaml';
import type * as z from 'zod';
import { SvcError } from '../errors.js';
import { DEFAULT_CONFIG_FILE } from './config-file.js';
import { isAboutTheKey } from './field-schemas.js';
import { svcConfigSchema, type SvcConfig } from './schema.js';

export { DEFAULT_CONFIG_FILE };
export const DEFAULT_LEDGER_PATH = '.svc/ledger.jsonl';

export interface LoadedConfig {
  file: string;
  config: SvcConfig;
}

/**
 * Reads and validates `svc.yml`. Every error names the file, line and column, the YAML path and
 * what to write instead, and nothing is guessed: an invalid file is an error, never a default.
 */
export async function loadConfig(file: string): Promise<LoadedConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new SvcError('config_missing', `${file} does not exist; copy svc.yml.example to ${DEFAULT_CONFIG_FILE} or pass --config <file>`);
    throw new SvcError('config_unreadable', `${file} cannot be read: ${(error as Error).message}`);
  }
  return { file, config: parseConfig(text, file) };
}

export function parseConfig(text: string, file: string): SvcConfig {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const yamlError = document.errors[0];
  if (yamlError) {
    const position = lineCounter.linePos(yamlError.pos[0]);
    throw new SvcError('config_invalid', `${file}:${position.line}:${position.col}: ${yamlProblem(yamlError, text)}`);
  }
  const parsed = svcConfigSchema.safeParse(document.toJS() ?? {}, { error: whatToWrite });
  if (parsed.success) return parsed.data;
  const messages = parsed.error.issues.map((issue) => {
    const path = issue.path.map(String);
    // A map key that is wrong in itself (unknown, or a record name zod refused) is pointed at, not its value.
    const badKey = issue.code === 'unrecognized_keys' ? (issue.keys[0] ?? '') : issue.code === 'invalid_key' || isAboutTheKey(issue) ? path.pop() : undefined;
    const node = badKey === undefined ? nearestNode(document, path) : keyNode(document.getIn(path, true), badKey);
    if (badKey !== undefined) path.push(badKey);
    // Only an empty file has no node: what is missing goes at its start.
    const position = node?.range ? lineCounter.linePos(node.range[0]) : { line: 1, col: 1 };
    const where = `${file}:${position.line}:${position.col}`;
    const key = path.length > 0 ? path.join('.') : '(top level)';
    const hint = issue.code === 'unrecognized_keys' ? `unknown key ${issue.keys.join(', ')}; see docs/configuration.md for the keys svc.yml accepts` : issue.message;
    return `${where}: ${key}: ${hint}`;
  });
  throw new SvcError('config_invalid', messages.join('\n'));
}

/** The node at `path`, or for a key that is missing, the map that should hold it: every message gets a line to go to. */
function nearestNode(document: Document, path: readonly string[]): Node | undefined {
  for (let length = path.length; length > 0; length -= 1) {
    const node = document.getIn(path.slice(0, length), true);
    if (isNode(node)) return node;
  }
  return isNode(document.contents) ? document.contents : undefined;
}

function keyNode(map: unknown, key: string): Node | undefined {
  if (!isMap(map)) return isNode(map) ? map : undefined;
  return map.items.find((pair) => isScalar(pair.key) && String(pair.key.value) === key)?.key as Node | undefined;
}

/** The parser's complaint, in terms of what to change. */
function yamlProblem(error: YAMLError, text: string): string {
  if (error.code === 'DUPLICATE_KEY') {
    const key = /^("[^"\n]*"|'[^'\n]*'|[^:\n]*)/.exec(text.slice(error.pos[0]))?.[0]?.trim() ?? '';
    return `duplicate key${key ? ` ${key}` : ''}: a key appears once in each map; keep one and delete the other`;
  }
  return `not valid YAML: ${error.message.split('\n')[0]}; check the indentation and quoting on this line or the one before`;
}

/**
 * The message of an issue no field of the schema words itself (the schema's own messages win;
 * this is zod's per-parse error map): what to write, never the value that was refused, which
 * could be a credential pasted into the wrong place.
 */
function whatToWrite(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return `${issue.input === undefined ? 'missing: ' : ''}expected ${KIND[issue.expected] ?? issue.expected}`;
    case 'invalid_value':
      return `expected ${issue.values.map((value) => String(value)).join(' or ')}`;
    case 'too_small':
      return issue.origin === 'string' ? 'cannot be empty' : issue.origin === 'array' ? `expected a list of at least ${issue.minimum} entries` : `expected at least ${issue.minimum}`;
    case 'too_big':
      return issue.origin === 'string' ? `expected at most ${issue.maximum} characters` : issue.origin === 'array' ? `expected a list of at most ${issue.maximum} entries` : `expected at most ${issue.maximum}`;
    case 'invalid_key':
      // The key schema's own message, not "Invalid key in record".
      return issue.issues[0]?.message;
    default:
      return undefined;
  }
}

/** How svc.yml spells each kind of value zod expects. */
const KIND: Partial<Record<string, string>> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'a map of keys (key: value)',
  record: 'a map of keys (key: value)',
  array: 'a list ([a, b] or lines starting with "- ")',
};

/** Relative paths in svc.yml are relative to the file itself, not to where svc was started. */
export function resolveFromConfig(loaded: LoadedConfig, path: string): string {
  return isAbsolute(path) ? path : resolve(dirname(loaded.file), path);
}
