import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { isMap, isScalar, LineCounter, parseDocument, type Node } from 'yaml';
import { SvcError } from '../errors.js';
import { DEFAULT_CONFIG_FILE } from './config-file.js';
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
    throw new SvcError('config_invalid', `${file}:${position.line}:${position.col}: not valid YAML: ${yamlError.message.split('\n')[0]}`);
  }
  const parsed = svcConfigSchema.safeParse(document.toJS() ?? {});
  if (parsed.success) return parsed.data;
  const messages = parsed.error.issues.map((issue) => {
    let path = issue.path.map(String);
    let node = document.getIn(path, true) as Node | undefined;
    if (issue.code === 'unrecognized_keys') {
      // Point at the unknown key itself, not at its value.
      const key = issue.keys[0] ?? '';
      node = isMap(node) ? (node.items.find((pair) => isScalar(pair.key) && pair.key.value === key)?.key as Node | undefined) : node;
      path = [...path, key];
    }
    const position = node?.range ? lineCounter.linePos(node.range[0]) : undefined;
    const where = position ? `${file}:${position.line}:${position.col}` : file;
    const key = path.length > 0 ? path.join('.') : '(top level)';
    const hint = issue.code === 'unrecognized_keys' ? `unknown key ${issue.keys.join(', ')}; see docs/configuration.md for the keys svc.yml accepts` : issue.message;
    return `${where}: ${key}: ${hint}`;
  });
  throw new SvcError('config_invalid', messages.join('\n'));
}

/** Relative paths in svc.yml are relative to the file itself, not to where svc was started. */
export function resolveFromConfig(loaded: LoadedConfig, path: string): string {
  return isAbsolute(path) ? path : resolve(dirname(loaded.file), path);
}
