import { parseArguments, type OptionSyntax } from '../argument-parser.js';
import type { CommandContext, CommandConvention } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { argumentsOf, reportEach } from './operands.js';

/**
 * Programs that change or remove the files their operands name: writers (tee, touch, truncate,
 * mkdir), attribute changers (chmod, chown: a write, since `chmod 777 ~/.ssh/id_rsa` weakens a
 * protected file), deleters (rm, unlink, rmdir, shred) and editors (a read and a write).
 */

function writer(syntax: OptionSyntax, readOptions: readonly string[] = [], after?: (context: CommandContext, operands: readonly Word[]) => void): CommandConvention {
  return {
    handler(context) {
      const parsed = parseArguments(argumentsOf(context), syntax);
      reportEach(context, 'read', parsed.values(...readOptions), `${context.program} reference file`);
      reportEach(context, 'write', parsed.operands, `${context.program} argument`);
      after?.(context, parsed.operands);
    },
  };
}

/**
 * chmod, chown, chgrp: the first operand is the mode or owner (unless `--reference`), the rest
 * are written; `-R` covers whole trees. chmod modes may look like options (`chmod -x f`).
 */
function attributeChanger(kind: 'mode' | 'owner'): CommandConvention {
  return {
    handler(context) {
      const words = argumentsOf(context).filter((word) => !(kind === 'mode' && word.value !== undefined && /^-[rwxXstugoa]+$/.test(word.value) && !/^-[Rfvch]+$/.test(word.value)));
      const modeAsOption = words.length !== argumentsOf(context).length;
      const parsed = parseArguments(words, { long: ['reference', 'from'] });
      const references = parsed.values('--reference');
      reportEach(context, 'read', references, `${context.program} --reference`);
      const targets = references.length > 0 || modeAsOption ? parsed.operands : parsed.operands.slice(1);
      const recursive = parsed.has('-R', '--recursive');
      const followFinal = !parsed.has('-h', '--no-dereference');
      reportEach(context, 'write', targets, `${context.program} argument`, { ...(recursive && { recursive: true }), followFinal, keepsContent: true });
    },
  };
}

/** rm, unlink, rmdir: a symlink named is removed itself, not what it points to. */
function deleter(syntax: OptionSyntax, recursiveOptions: readonly string[]): CommandConvention {
  return {
    handler(context) {
      const parsed = parseArguments(argumentsOf(context), syntax);
      const recursive = parsed.has(...recursiveOptions);
      reportEach(context, 'delete', parsed.operands, `${context.program} argument`, { ...(recursive && { recursive: true }), followFinal: false, dashIsFile: true });
    },
  };
}

/** Editors open a file to read and write it; `+N` and `-c cmd` words are not files. */
function editor(syntax: OptionSyntax): CommandConvention {
  return {
    handler(context) {
      // `printf 'r .env\n,p\n' | ed -s`: ed's commands on standard input can read any file and run a shell (`!cmd`).
      if (context.program === 'ed' && context.stdin.kind !== 'inherited') context.dynamic('execute', 'ed (commands from standard input)', 'interpreter_code', 'ed commands');
      const parsed = parseArguments(argumentsOf(context).filter((word) => !word.value?.startsWith('+')), syntax);
      for (const file of parsed.operands) {
        context.file('read', file, `${context.program} argument`);
        context.file('write', file, `${context.program} argument`);
      }
    },
  };
}

/**
 * patch: the files it changes are named inside the patch, which is not read here, so they are a
 * dynamic write; `patch file [patchfile]`, `-o out` and `-i patchfile` are followed.
 */
const PATCH: CommandConvention = {
  handler(context) {
    // -l (--ignore-whitespace) is a flag and --merge[=STYLE] takes its value only after `=`.
    const parsed = parseArguments(argumentsOf(context), { short: 'iopdDrBFVYzg', long: ['input', 'output', 'strip', 'directory', 'ifdef', 'reject-file', 'prefix', 'fuzz', 'version-control', 'basename-prefix', 'suffix', 'get', 'quoting-style', 'reject-format'] });
    reportEach(context, 'read', parsed.values('-i', '--input'), 'patch input');
    const [original, patchFile] = parsed.operands;
    if (patchFile !== undefined) context.file('read', patchFile, 'patch input');
    const outputs = parsed.values('-o', '--output');
    reportEach(context, 'write', outputs, 'patch --output');
    if (original !== undefined) {
      context.file('read', original, 'patch original');
      if (outputs.length === 0) context.file('write', original, 'patch original');
    } else if (outputs.length === 0 && !parsed.has('--dry-run', '-C', '--check')) {
      context.dynamic('write', 'files named in the patch', 'unsupported', 'patch');
    }
  },
};

const VIM_SYNTAX: OptionSyntax = { short: 'cSuUiTWwstqr', long: ['cmd', 'servername', 'remote', 'startuptime'] };

export const FILE_WRITERS: Record<string, CommandConvention> = {
  tee: writer({ long: ['output-error'] }),
  patch: PATCH,
  touch: writer({ short: 'dtr', long: ['date', 'reference', 'time'] }, ['-r', '--reference']),
  truncate: writer({ short: 'sr', long: ['size', 'reference'] }, ['-r', '--reference']),
  mkdir: writer({ short: 'm', long: ['mode'] }, [], (context, operands) => operands.forEach((word) => context.created(word))),
  mkfifo: writer({ short: 'm', long: ['mode'] }),
  chmod: attributeChanger('mode'),
  chown: attributeChanger('owner'),
  chgrp: attributeChanger('owner'),
  chattr: attributeChanger('mode'),
  setfacl: writer({ short: 'mMxX', long: ['modify', 'modify-file', 'remove', 'remove-file', 'set', 'set-file'] }, ['-M', '--modify-file', '-X', '--remove-file', '--set-file']),
  rm: deleter({}, ['-r', '-R', '--recursive']),
  unlink: deleter({}, []),
  rmdir: deleter({}, []),
  shred: {
    handler(context) {
      // shred overwrites the content (through a symlink too) and with -u removes the file.
      // --remove[=HOW] takes its value only after `=`.
      const parsed = parseArguments(argumentsOf(context), { short: 'ns', long: ['iterations', 'size', 'random-source'] });
      reportEach(context, 'read', parsed.values('--random-source'), 'shred --random-source');
      reportEach(context, 'delete', parsed.operands, 'shred argument');
    },
  },
  srm: deleter({}, ['-r', '-R', '--recursive']),
  trash: deleter({}, []),
  'trash-put': deleter({}, []),
  vi: editor(VIM_SYNTAX),
  vim: editor(VIM_SYNTAX),
  nvim: editor(VIM_SYNTAX),
  view: editor(VIM_SYNTAX),
  ex: editor(VIM_SYNTAX),
  nano: editor({ short: 'oQTXY', long: ['operatingdir', 'quotestr', 'tabsize', 'wordchars', 'syntax'] }),
  pico: editor({}),
  micro: editor({ long: ['config-dir', 'plugin'] }),
  emacs: editor({ short: 'lfL', long: ['load', 'funcall', 'eval', 'directory', 'chdir'] }),
  ed: editor({ short: 'p', long: ['prompt'] }),
  code: editor({ long: ['diff', 'goto', 'user-data-dir', 'extensions-dir', 'profile', 'locale'] }),
  subl: editor({ long: ['project', 'command'] }),
};
