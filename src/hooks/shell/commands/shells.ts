import { parseArguments } from '../argument-parser.js';
import type { CommandContext, CommandConvention, FileOptions } from '../command-context.js';
import type { ScriptRunner } from '../script-files.js';
import type { Word } from '../word-expansion.js';
import { argumentsOf, reportPathLikeArguments } from './operands.js';

/**
 * Shells run code given to them in four ways, and each is followed:
 * - `sh -c 'code'`: the string is parsed again as a script (one level deeper);
 * - `sh script.sh args`: the script file is executed, and the code in it followed (script-files.ts);
 * - `sh < script.sh`: the same, through standard input;
 * - `sh <<EOF … EOF`, `echo 'code' | sh`: code on standard input, parsed when it is known
 *   statically, dynamic interpreter code otherwise (`curl … | sh`).
 * `eval` and `source`/`.` run code in the current shell, `trap` and `alias` define code that
 * runs later; all are followed the same way.
 */

/** Names of a process' own standard input: a script read from one is code from standard input (`bash /dev/stdin <<< 'cmd'`). */
const STANDARD_INPUT: ReadonlySet<string> = new Set(['/dev/stdin', '/dev/fd/0', '/proc/self/fd/0', '/proc/thread-self/fd/0']);

/** Options that take a value: `-o pipefail`, `-O extglob`, `--rcfile f`, `--init-file f`, fish `-C cmd`. */
const SHELL_VALUE_OPTIONS = new Set(['-o', '+o', '-O', '+O', '--rcfile', '--init-file', '-C', '--init-command', '--emulate', '--features', '--debug', '--debug-output', '--profile']);

const SHELL: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context);
    let command = false;
    let fromStdin = false;
    let index = 0;
    for (; index < words.length; index += 1) {
      const word = words[index] as Word;
      const value = word.value;
      if (value === undefined || value === '-' || !(value.startsWith('-') || value.startsWith('+'))) break;
      if (value === '--') {
        index += 1;
        break;
      }
      if (SHELL_VALUE_OPTIONS.has(value)) {
        const option = words[index + 1];
        if ((value === '--rcfile' || value === '--init-file') && option !== undefined) {
          context.file('read', option, `${context.program} ${value}`);
          context.file('execute', option, `${context.program} ${value}`);
        }
        if ((value === '-C' || value === '--init-command') && option !== undefined) runCode(context, option, `${context.program} ${value}`);
        index += 1;
        continue;
      }
      if (value === '--command') command = true;
      else if (!value.startsWith('--')) {
        if (value.slice(1).includes('c')) command = true;
        if (value.slice(1).includes('s')) fromStdin = true;
        // `-o` inside a cluster (`-eo pipefail`) takes the next word as well.
        if (/^[-+][a-zA-Z]*o$/.test(value)) index += 1;
      }
    }
    const operands = words.slice(index);
    if (command) {
      const code = operands[0];
      if (code === undefined) return;
      runCode(context, code, `${context.program} -c`);
      return;
    }
    const script = operands[0];
    if (script !== undefined && !fromStdin && script.value !== '-' && !STANDARD_INPUT.has(script.value ?? '')) {
      context.file('execute', script, `${context.program} script`, shellRunner(context, 'new_shell'));
      reportPathLikeArguments(context, operands.slice(1), `${context.program} script argument`);
      return;
    }
    codeFromStdin(context);
  },
};

/** A shell or interpreter with no script reads its code from standard input. */
export function codeFromStdin(context: CommandContext, language: 'shell' | 'other' = 'shell'): void {
  const stdin = context.stdin;
  if (stdin.kind === 'file') {
    context.file('execute', stdin.word, `${context.program} reads its script from standard input`, language === 'shell' ? shellRunner(context, 'new_shell') : {});
    return;
  }
  if (language === 'shell' && stdin.kind === 'text' && stdin.text !== undefined) {
    context.script(stdin.text, `${context.program} reading a ${stdin.from}`);
    return;
  }
  if (stdin.kind === 'text' && stdin.text === '') return;
  const text = stdin.kind === 'text' && stdin.text !== undefined ? stdin.text : `${context.program} (code from standard input)`;
  context.dynamic('execute', text, 'interpreter_code', `${context.program} reading code from standard input`);
}

function runCode(context: CommandContext, code: Word, via: string, sameShell = false): void {
  if (code.value === undefined) context.dynamic('execute', code.text, code.reason, via);
  else context.script(code.value, via, { sameShell });
}

/** eval joins its words with spaces and runs the result in this shell. */
const EVAL: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context).filter((word, index) => !(index === 0 && word.value === '--'));
    if (words.length === 0) return;
    const dynamic = words.find((word) => word.value === undefined);
    if (dynamic !== undefined) {
      context.dynamic('execute', words.map((word) => word.value ?? word.text).join(' '), dynamic.reason ?? 'variable', 'eval');
      return;
    }
    context.script(words.map((word) => word.value).join(' '), 'eval', { sameShell: true });
  },
};

/** source/. FILE runs the file's code in this shell: a read and an execute of the file. */
const SOURCE: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context).filter((word, index) => !(index === 0 && word.value === '--'));
    const file = words[0];
    if (file === undefined) return;
    if (STANDARD_INPUT.has(file.value ?? '')) {
      codeFromStdin(context);
      return;
    }
    context.file('read', file, `${context.program} file`);
    context.file('execute', file, `${context.program} file`, shellRunner(context, 'same_shell'));
  },
};

/** fish reads its own language, which the bash grammar cannot follow: its script files stay opaque. */
function shellRunner(context: CommandContext, runner: ScriptRunner): FileOptions {
  return context.program === 'fish' ? {} : { runner };
}

/** trap 'code' SIGNAL…: the code runs later, in this shell. */
const TRAP: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context).filter((word) => word.value !== '--');
    if (words.length < 2 || words[0]?.value === '-p' || words[0]?.value === '-l' || words[0]?.value === '-') return;
    runCode(context, words[0] as Word, 'trap');
  },
};

/** alias name='code': the code runs wherever the name is used later. */
const ALIAS: CommandConvention = {
  handler(context) {
    for (const word of argumentsOf(context)) {
      if (word.value === undefined) {
        context.dynamic('execute', word.text, word.reason, 'alias');
        continue;
      }
      const equals = word.value.indexOf('=');
      if (equals > 0) context.script(word.value.slice(equals + 1), 'alias');
    }
  },
};

/**
 * mapfile/readarray `-C callback -c quantum`: bash evaluates the callback as shell code every
 * quantum lines, with the index and the line appended as words (`-C 'cat .env >&2 #'` runs cat).
 * The line is the input's, known only at run time.
 */
const MAPFILE: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'dnOsuCc' });
    for (const callback of parsed.values('-C')) {
      if (callback.value === undefined) context.dynamic('execute', callback.text, callback.reason, `${context.program} -C callback`);
      else context.script(`${callback.value} "$MAPFILE_INDEX" "$MAPFILE_LINE"`, `${context.program} -C callback`);
    }
  },
};

/** busybox APPLET args: the applet is the program. */
const BUSYBOX: CommandConvention = {
  wrapper: true,
  handler(context) {
    const words = argumentsOf(context);
    if (words.length > 0) context.run(words);
  },
};

export const SHELLS: Record<string, CommandConvention> = {
  sh: SHELL,
  bash: SHELL,
  zsh: SHELL,
  dash: SHELL,
  ksh: SHELL,
  mksh: SHELL,
  ash: SHELL,
  yash: SHELL,
  fish: SHELL,
  rbash: SHELL,
  eval: EVAL,
  source: SOURCE,
  '.': SOURCE,
  trap: TRAP,
  alias: ALIAS,
  busybox: BUSYBOX,
  mapfile: MAPFILE,
  readarray: MAPFILE,
};
