import { staticWord } from '../argument-parser.js';
import type { CommandConvention } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { argumentsOf } from './operands.js';

/**
 * find walks whole trees (`.` when no starting point is given) but reads only names and
 * metadata, like `ls -R`: on its own it opens no file's content, so `find . -name '*.ts'` is no
 * read of the `.env` beside them. What it does to the files it finds is in its actions:
 * `-delete` deletes them, and `-exec cmd {} ;` runs cmd on every file found, so an operation
 * cmd performs on `{}` is that operation on each tree (`find . -exec cat {} +` reads everything
 * under `.`). `-fprint file` writes the list; `-files0-from file` reads one.
 */

/** Expression primaries that take one value (which must not be read as a path or a primary). */
const VALUE_PRIMARIES = new Set([
  '-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-type', '-xtype', '-perm', '-user', '-group', '-size', '-mtime', '-atime', '-ctime',
  '-mmin', '-amin', '-cmin', '-maxdepth', '-mindepth', '-newer', '-anewer', '-cnewer', '-samefile', '-links', '-inum', '-uid', '-gid', '-fstype', '-used', '-printf', '-context',
  '-regextype', '-lname', '-ilname', '-files0-from', '-fprint', '-fprint0', '-fls',
]);

const EXEC_PRIMARIES = new Set(['-exec', '-execdir', '-ok', '-okdir']);

export const FIND: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context);
    let index = 0;
    // Global options before the starting points: -H, -L, -P, -O3, -D debugopts.
    for (; index < words.length; index += 1) {
      const value = words[index]?.value;
      if (value === '-H' || value === '-L' || value === '-P' || (value !== undefined && /^-O\d*$/.test(value))) continue;
      if (value === '-D') {
        index += 1;
        continue;
      }
      break;
    }
    const roots: Word[] = [];
    for (; index < words.length; index += 1) {
      const word = words[index] as Word;
      if (word.value !== undefined && (word.value.startsWith('-') || word.value === '(' || word.value === '!' || word.value === ',')) break;
      roots.push(word);
    }
    if (roots.length === 0) roots.push(staticWord('.'));
    for (; index < words.length; index += 1) {
      const primary = (words[index] as Word).value;
      if (primary === undefined) continue;
      if (EXEC_PRIMARIES.has(primary)) {
        const command: Word[] = [];
        for (index += 1; index < words.length; index += 1) {
          const word = words[index] as Word;
          if (word.value === ';' || (word.value === '+' && command[command.length - 1]?.value === '{}')) break;
          // GNU find replaces `{}` inside a word too (`{}.bak`): it still stands for a found file.
          command.push(word.value !== undefined && word.value !== '{}' && word.value.includes('{}') ? { value: '{}', text: word.value } : word);
        }
        if (command.length > 0) context.run(command, { placeholder: { token: '{}', roots } });
      } else if (primary === '-delete') {
        for (const root of roots) context.file('delete', root, 'find -delete', { recursive: true, followFinal: false });
      } else if (primary === '-fprint' || primary === '-fprint0' || primary === '-fls' || primary === '-fprintf') {
        const file = words[index + 1];
        if (file !== undefined) context.file('write', file, `find ${primary}`);
        index += primary === '-fprintf' ? 2 : 1;
      } else if (primary === '-files0-from') {
        const file = words[index + 1];
        if (file !== undefined) context.file('read', file, 'find -files0-from');
        index += 1;
      } else if (VALUE_PRIMARIES.has(primary) || /^-newer[amBct][amBctt]$/.test(primary)) {
        index += 1;
      }
    }
  },
};
