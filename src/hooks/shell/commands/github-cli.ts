import { parseArguments } from '../argument-parser.js';
import type { CommandConvention } from '../command-context.js';
import { argumentsOf, reportEach } from './operands.js';

/**
 * gh, the GitHub CLI. Titles and bodies are text, not paths (`gh pr create --body "$(cat
 * <<'EOF' … EOF)"` is the usual way an agent writes a pull request), so the unknown-program
 * heuristic would be wrong here. What gh does read: `--body-file`, `--input`, `--notes-file`,
 * `-F key=@file`, and the files it uploads (`gh release upload`, `gh gist create`).
 */
const GH: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context);
    const parsed = parseArguments(words, {
      short: 'bFftRmlaqrHpXjeBLsAwS',
      long: ['body', 'body-file', 'title', 'repo', 'input', 'notes', 'notes-file', 'field', 'raw-field', 'header', 'jq', 'template', 'method', 'base', 'head', 'label', 'assignee', 'reviewer', 'milestone', 'project', 'hostname', 'limit', 'state', 'search', 'json', 'author', 'branch', 'desc', 'filename', 'target', 'workflow', 'ref', 'message', 'subject'],
    });
    reportEach(context, 'read', parsed.values('-F', '--body-file', '--input', '--notes-file').filter((word) => word.value !== undefined && !word.value.includes('=')), 'gh option file');
    for (const field of parsed.values('-F', '--field')) {
      const at = field.value?.indexOf('=@') ?? -1;
      if (field.value !== undefined && at > 0) context.file('read', { value: field.value.slice(at + 2), text: field.value }, 'gh --field @file');
    }
    const [group, action, ...rest] = parsed.operands;
    if (group?.value === 'release' && action?.value === 'upload') reportEach(context, 'read', rest.slice(1), 'gh release upload');
    if (group?.value === 'release' && action?.value === 'create') reportEach(context, 'read', rest.slice(1), 'gh release create asset');
    if (group?.value === 'gist' && action?.value === 'create') reportEach(context, 'read', rest, 'gh gist create');
  },
};

export const GITHUB_CLI: Record<string, CommandConvention> = { gh: GH };
