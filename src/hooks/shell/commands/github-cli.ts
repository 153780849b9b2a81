import { parseArguments } from '../argument-parser.js';
import type { CommandConvention } from '../command-context.js';
import type { Word } from '../word-expansion.js';
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
    // Letters that are a flag in some subcommand are not listed (`-w` --web, `-f` --fill, `-p`
    // gist's --public, `-e` --editor): a value taken for a flag's would hide the file after it.
    const parsed = parseArguments(words, {
      short: 'bFtRmlaqrHXjBLsAS',
      long: ['body', 'body-file', 'title', 'repo', 'input', 'notes', 'notes-file', 'field', 'raw-field', 'header', 'jq', 'template', 'method', 'base', 'head', 'label', 'assignee', 'reviewer', 'milestone', 'project', 'hostname', 'limit', 'state', 'search', 'json', 'author', 'branch', 'desc', 'filename', 'target', 'workflow', 'ref', 'message', 'subject', 'env-file'],
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
    // `gh secret set -f .env` uploads every value of a dotenv file; `ssh-key add`/`gpg-key add` upload a key file.
    if ((group?.value === 'secret' || group?.value === 'variable') && action?.value === 'set') {
      reportEach(context, 'read', [...parsed.values('--env-file'), ...wordsAfter(words, '-f')], `gh ${group.value} set --env-file`);
    }
    if ((group?.value === 'ssh-key' || group?.value === 'gpg-key') && action?.value === 'add') reportEach(context, 'read', rest, `gh ${group.value} add`);
    // An alias (`!cmd`, `--shell`) or a setting (editor, pager, browser) is a shell command a later gh runs.
    if ((group?.value === 'alias' && (action?.value === 'set' || action?.value === 'import')) || (group?.value === 'config' && action?.value === 'set')) {
      context.dynamic('execute', words.map((word) => word.value ?? word.text).join(' '), 'interpreter_code', `gh ${group.value} ${action.value} (a command a later gh may run)`);
    }
  },
};

/** The words that follow `flag` (each time it appears alone), for a letter that takes a value in only some subcommands. */
function wordsAfter(words: readonly Word[], flag: string): Word[] {
  const found: Word[] = [];
  words.forEach((word, index) => {
    const next = words[index + 1];
    if (word.value === flag && next !== undefined) found.push(next);
  });
  return found;
}

export const GITHUB_CLI: Record<string, CommandConvention> = { gh: GH };
