import { parseArguments, staticWord, type ParsedArguments } from '../argument-parser.js';
import type { CommandContext, CommandConvention } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { argumentsOf, looksLikePath, reportEach, reportEnvFiles, reportPathLikeArguments } from './operands.js';
import { codeFromStdin } from './shells.js';
import { runPackageScript } from './package-scripts.js';

/**
 * Language interpreters. Inline code (`python -c`, `node -e`, `perl -e`, …) can open any file,
 * and the analysis does not read other languages, so it is reported as dynamic interpreter code
 * (an execute whose target is unknown). A script file given to an interpreter is an execute of
 * that file; the script's own arguments get the unknown-program heuristic (see operands.ts).
 * Perl and Ruby in line mode (`-n`, `-p`) read their file operands, and with `-i` rewrite them.
 */
interface InterpreterSpec {
  /** Options whose value is code. */
  code: readonly string[];
  /** Letters of other short options that take a value, and long ones. */
  short?: string;
  long?: readonly string[];
  /** Letters of short options that take only the rest of their word (`perl -MJSON`, `perl -F:`), never the next one. */
  glued?: string;
  /** Letters of short options followed by an optional glued number (`perl -l0`, `perl -0777`), after which the cluster goes on. */
  numeric?: string;
  /** Options whose value is a script file (`php -f`). */
  scriptOptions?: readonly string[];
  /** Options after which the operands are arguments of a library module (`python -m`). */
  moduleOptions?: readonly string[];
  /** Options whose value is a file read (`node --env-file`). */
  readOptions?: readonly string[];
  /** Options whose value is a module that runs (`node -r ./setup.js`): an execute when it is a path. */
  preloadOptions?: readonly string[];
  /** Perl and Ruby: `-n`/`-p` read the operands, `-i` edits them in place. */
  lineModes?: boolean;
}

function interpreter(spec: InterpreterSpec): CommandConvention {
  return {
    handler(context) {
      const words = spec.lineModes ? splitInPlaceSuffix(argumentsOf(context)) : argumentsOf(context);
      // `python -m pdb -c cmd x.py`: the words after `-m MODULE` are the module's, not the interpreter's options.
      const moduleWords = spec.moduleOptions === undefined ? [] : moduleArguments(words);
      const ownWords = words.slice(0, words.length - moduleWords.length);
      const parsed = parseArguments(ownWords, { short: spec.short ?? '', glued: spec.glued ?? '', numeric: spec.numeric ?? '', long: spec.long ?? [], stopAtOperand: true });
      reportEach(context, 'read', parsed.values(...(spec.readOptions ?? [])), `${context.program} option file`);
      for (const module of parsed.values(...(spec.preloadOptions ?? []))) if (module.value?.startsWith('.') || module.value?.startsWith('/')) context.file('execute', module, `${context.program} preload`);
      const codes = parsed.values(...spec.code);
      const scripts = parsed.values(...(spec.scriptOptions ?? []));
      let operands = parsed.operands;
      if (codes.length > 0) {
        for (const code of codes) context.dynamic('execute', code.value ?? code.text, code.value === undefined ? code.reason : 'interpreter_code', `${context.program} inline code`);
      } else if (scripts.length > 0) {
        reportEach(context, 'execute', scripts, `${context.program} script`);
      } else if (parsed.has(...(spec.moduleOptions ?? []))) {
        // A library module runs with these arguments: nothing to execute by path; a few are known.
        const module = parsed.last(...(spec.moduleOptions ?? []))?.value;
        const known = module === undefined || !Object.hasOwn(PYTHON_MODULES, module) ? undefined : PYTHON_MODULES[module];
        if (known !== undefined) {
          known(context, moduleWords);
          return;
        }
        operands = moduleWords;
      } else if (operands[0] !== undefined && operands[0].value !== '-') {
        context.file('execute', operands[0], `${context.program} script`);
        operands = operands.slice(1);
      } else {
        codeFromStdin(context, 'other');
        operands = operands.slice(1);
      }
      if (spec.lineModes && parsed.has('-n', '-p', '-i')) {
        for (const file of operands) {
          context.file('read', file, `${context.program} -n/-p input`);
          if (parsed.has('-i')) context.file('write', file, `${context.program} -i`);
        }
        return;
      }
      reportPathLikeArguments(context, operands, `${context.program} argument`);
    },
  };
}

/** The words after `-m MODULE` (or `-mMODULE`): all of them belong to the module, options included. */
function moduleArguments(words: readonly Word[]): readonly Word[] {
  // Only among the interpreter's own options: a script's `-m` (`python x.py -m y`) or a `-c` program ends them.
  for (let at = 0; at < words.length; at += 1) {
    const value = (words[at] as Word).value;
    if (value === undefined || !value.startsWith('-') || value === '-' || value === '--' || value.startsWith('--')) {
      if (value?.startsWith('--') === true && value !== '--') continue;
      return [];
    }
    // A cluster (`-Bm`, `-Wdefault`): a letter that takes a value takes the rest of the word, or the next word.
    const letters = value.slice(1);
    const valueAt = letters.search(/[mcWXQ]/);
    if (valueAt === -1) continue;
    const glued = valueAt < letters.length - 1;
    if (letters[valueAt] === 'm') return words.slice(at + (glued ? 1 : 2));
    if (letters[valueAt] === 'c') return [];
    if (!glued) at += 1;
  }
  return [];
}

/** `perl -i.bak -pe …`: the backup suffix is glued to `-i`; keep `-i` and drop the suffix. */
function splitInPlaceSuffix(words: readonly Word[]): Word[] {
  return words.map((word) => (word.value !== undefined && /^-[a-zA-Z]*i[^a-zA-Z\s]/.test(word.value) ? { value: word.value.replace(/i[^a-zA-Z\s].*$/, 'i'), text: word.text } : word));
}

/**
 * Python library modules that read files their arguments do not name: `http.server` serves its
 * directory (everything under it is readable by whoever connects), `dotenv` loads `.env` (and
 * `list`/`get` print it, `run` runs a command with it).
 */
const PYTHON_MODULES: Record<string, (context: CommandContext, words: readonly Word[]) => void> = {
  'http.server': (context, words) => {
    const parsed = parseArguments(words, { short: 'bdp', long: ['bind', 'directory', 'protocol'] });
    context.file('read', parsed.last('-d', '--directory') ?? staticWord('.'), 'python -m http.server (served directory)', { recursive: true });
  },
  SimpleHTTPServer: (context) => context.file('read', staticWord('.'), 'python -m SimpleHTTPServer (served directory)', { recursive: true }),
  // `-s SETUP` and the statements are Python code it runs.
  timeit: (context, words) => {
    const parsed = parseArguments(words, { short: 'nrsu', long: ['number', 'repeat', 'setup', 'unit'] });
    for (const code of [...parsed.values('-s', '--setup'), ...parsed.operands]) inlineCode(context, code, 'python -m timeit');
  },
  // An interactive console: the code comes from standard input.
  code: (context) => codeFromStdin(context, 'other'),
  // A debugger: `-c` commands (`!import os; …`) and the ones typed on standard input run Python; the script runs.
  pdb: (context, words) => {
    const parsed = parseArguments(words, { short: 'cm', long: ['command'], stopAtOperand: true });
    for (const command of parsed.values('-c', '--command')) inlineCode(context, command, 'python -m pdb -c');
    runsScript(context, parsed, 'python -m pdb');
    codeFromStdin(context, 'other');
  },
  trace: (context, words) => {
    // `-m` is --missing here; `--module NAME` runs a module.
    const parsed = parseArguments(words, { short: 'fC', long: ['file', 'coverdir', 'ignore-module', 'ignore-dir'], stopAtOperand: true });
    for (const file of parsed.values('-f', '--file')) {
      context.file('read', file, 'python -m trace --file');
      context.file('write', file, 'python -m trace --file');
    }
    reportEach(context, 'write', parsed.values('-C', '--coverdir'), 'python -m trace --coverdir', { recursive: true });
    runsScript(context, parsed, 'python -m trace', ['--module']);
  },
  // The examples in each file's docstrings (or the text file itself) are Python code it runs.
  doctest: (context, words) => {
    const parsed = parseArguments(words, { short: 'o', long: ['option'] });
    reportEach(context, 'execute', parsed.operands, 'python -m doctest');
  },
  // `-d f.gz` writes f; compressing writes f.gz (a protected name plus `.gz` is checked like any path).
  gzip: (context, words) => {
    const parsed = parseArguments(words, {});
    const decompress = parsed.has('-d', '--decompress');
    for (const file of parsed.operands) {
      context.file('read', file, 'python -m gzip');
      if (file.value === undefined) context.dynamic('write', file.text, file.reason ?? 'unsupported', 'python -m gzip output');
      else context.file('write', staticWord(decompress ? file.value.replace(/\.gz$/, '') : `${file.value}.gz`), 'python -m gzip output');
    }
  },
  // `-e ARCHIVE DIR` writes under DIR; `-c ARCHIVE SRC…` reads the sources and writes the archive.
  zipfile: (context, words) => archiveModule(context, words, 'python -m zipfile'),
  tarfile: (context, words) => archiveModule(context, words, 'python -m tarfile'),
  // `SRC -o OUT`: reads SRC (a directory or an archive), writes OUT (SRC.pyz by default).
  zipapp: (context, words) => {
    const parsed = parseArguments(words, { short: 'opm', long: ['output', 'python', 'main'] });
    const source = parsed.operands[0];
    if (source !== undefined) context.file('read', source, 'python -m zipapp source', { recursive: true });
    const output = parsed.last('-o', '--output');
    if (output !== undefined) context.file('write', output, 'python -m zipapp output');
    else if (source?.value !== undefined) context.file('write', staticWord(`${source.value.replace(/\/+$/, '')}.pyz`), 'python -m zipapp output');
    else if (source !== undefined) context.dynamic('write', source.text, source.reason ?? 'unsupported', 'python -m zipapp output');
  },
  // `json.tool [IN [OUT]]`: reads IN, writes OUT.
  'json.tool': (context, words) => {
    const parsed = parseArguments(words, { long: ['indent'] });
    const [input, output] = parsed.operands;
    if (input !== undefined && input.value !== '-') context.file('read', input, 'python -m json.tool input');
    if (output !== undefined && output.value !== '-') context.file('write', output, 'python -m json.tool output');
  },
  cProfile: (context, words) => profiler(context, words, 'python -m cProfile'),
  profile: (context, words) => profiler(context, words, 'python -m profile'),
  dotenv: (context, words) => {
    const parsed = parseArguments(words, { short: 'fe', long: ['file', 'export'], stopAtOperand: true });
    const files = parsed.values('-f', '--file');
    if (files.length > 0) reportEach(context, 'read', files, 'python -m dotenv --file');
    else context.file('read', staticWord('.env'), 'python -m dotenv (.env)');
    const [action, ...rest] = parsed.operands;
    if (action?.value === 'run') {
      const command = parseArguments(rest, { stopAtOperand: true }).operands;
      if (command.length > 0) context.run(command);
    }
  },
};

/** `python -m zipfile|tarfile`: `-e ARCHIVE DIR` extracts under DIR, `-c ARCHIVE SRC…` creates, `-l`/`-t` read. */
function archiveModule(context: CommandContext, words: readonly Word[], via: string): void {
  const parsed = parseArguments(words, { short: 'lecte', long: ['list', 'extract', 'create', 'test', 'filter'] });
  const extract = parsed.values('-e', '--extract');
  const create = parsed.values('-c', '--create');
  const listed = [...parsed.values('-l', '--list'), ...parsed.values('-t', '--test')];
  reportEach(context, 'read', listed, `${via} archive`);
  if (extract[0] !== undefined) {
    context.file('read', extract[0], `${via} archive`);
    const target = parsed.operands[0] ?? staticWord('.');
    context.file('write', target, `${via} -e (extracted under it)`, { recursive: true });
  }
  if (create[0] !== undefined) {
    context.file('write', create[0], `${via} -c archive`);
    reportEach(context, 'read', parsed.operands, `${via} -c source`, { recursive: true });
  }
}

function inlineCode(context: CommandContext, code: Word, via: string): void {
  context.dynamic('execute', code.value ?? code.text, code.value === undefined ? code.reason : 'interpreter_code', via);
}

/** `[-m module | script] args…` after a runner module's own options: the script is executed, a module is not a path. */
function runsScript(context: CommandContext, parsed: ParsedArguments, via: string, moduleOptions: readonly string[] = ['-m']): void {
  if (parsed.has(...moduleOptions)) return;
  const [script, ...rest] = parsed.operands;
  if (script === undefined) return;
  context.file('execute', script, `${via} script`);
  reportPathLikeArguments(context, rest, `${via} script argument`);
}

/** cProfile, profile: `-o` writes the statistics, the script runs. */
function profiler(context: CommandContext, words: readonly Word[], via: string): void {
  const parsed = parseArguments(words, { short: 'osm', long: ['outfile', 'sort'], stopAtOperand: true });
  reportEach(context, 'write', parsed.values('-o', '--outfile'), `${via} -o`);
  runsScript(context, parsed, via);
}

const PYTHON = interpreter({ code: ['-c'], short: 'cmWXQ', long: ['check-hash-based-pycs'], moduleOptions: ['-m'] });
const NODE = interpreter({
  code: ['-e', '--eval', '-p', '--print'],
  short: 'eprC',
  long: ['eval', 'print', 'require', 'import', 'loader', 'experimental-loader', 'input-type', 'conditions', 'env-file', 'env-file-if-exists', 'title', 'stack-size', 'max-old-space-size', 'test-name-pattern', 'test-reporter', 'test-reporter-destination', 'watch-path', 'inspect-port', 'disable-warning', 'redirect-warnings', 'report-dir', 'diagnostic-dir', 'cpu-prof-dir', 'heap-prof-dir'],
  readOptions: ['--env-file', '--env-file-if-exists'],
  preloadOptions: ['-r', '--require', '--import', '--loader', '--experimental-loader'],
});
// perl's -l, -0, -F, -M, -m, -d, -D, -C and -x take only what is glued to them: `perl -l -e CODE` runs CODE.
const PERL = interpreter({ code: ['-e', '-E'], short: 'eEI', glued: 'FdDCxMm', numeric: 'l0', lineModes: true });
// ruby's -W, -x, -0, -F and -T take only what is glued to them: `ruby -W -e CODE` runs CODE.
const RUBY = interpreter({ code: ['-e'], short: 'eIrCEX', glued: 'Fx', numeric: 'W0T', long: ['encoding', 'external-encoding', 'internal-encoding', 'enable', 'disable', 'dump'], lineModes: true });
const PHP_INTERPRETER = interpreter({ code: ['-r', '-B', '-R', '-E'], short: 'rBREfdcStz', scriptOptions: ['-f'], readOptions: ['-c'] });

/** php, and `php -S addr [-t root]`: the built-in web server serves everything under its document root. */
const PHP: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'rBREfdcStz', stopAtOperand: true });
    if (!parsed.has('-S')) {
      PHP_INTERPRETER.handler(context);
      return;
    }
    reportEach(context, 'read', parsed.values('-c'), 'php option file');
    context.file('read', parsed.last('-t') ?? staticWord('.'), 'php -S (document root)', { recursive: true });
    // `php -S addr router.php`: the router script runs for every request.
    reportEach(context, 'execute', parsed.operands, 'php -S router script');
  },
};
const OSASCRIPT = interpreter({ code: ['-e'], short: 'els' });
const LUA = interpreter({ code: ['-e'], short: 'el' });
const RSCRIPT = interpreter({ code: ['-e'], long: ['default-packages'] });
const JULIA = interpreter({ code: ['-e', '-E', '--eval', '--print'], short: 'eELJCpt', numeric: 'O', long: ['eval', 'print', 'load', 'project', 'sysimage', 'threads', 'procs'] });
/** PowerShell parameters that take a value, by full name: any unambiguous prefix, in any case, names them too. */
const POWERSHELL_VALUES = ['executionpolicy', 'workingdirectory', 'configurationname', 'outputformat', 'inputformat', 'windowstyle', 'version', 'settingsfile', 'custompipename'];
/** Their documented short names. */
const POWERSHELL_VALUE_ALIASES = new Set(['ep', 'ex', 'wd', 'o', 'of', 'if', 'inp', 'w', 'v', 'config', 'settings']);

/**
 * pwsh, powershell: parameters start with one dash or two, in any case, and may be shortened to
 * any prefix (`-Command`, `-command`, `-Comm`, `-c`): the command (and everything after it, for
 * -Command and -CommandWithArgs) or an encoded one is inline code; `-File f` or the first operand
 * is a script run.
 */
const POWERSHELL: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context);
    for (let index = 0; index < words.length; index += 1) {
      const word = words[index] as Word;
      const value = word.value;
      if (value === undefined) {
        context.dynamic('execute', word.text, word.reason, `${context.program} argument`);
        continue;
      }
      if (!value.startsWith('-') || value === '-') {
        context.file('execute', word, `${context.program} script`);
        reportPathLikeArguments(context, words.slice(index + 1), `${context.program} script argument`);
        return;
      }
      const name = value.replace(/^--?/, '').split(':')[0]?.toLowerCase() ?? '';
      if (name !== '' && ('command'.startsWith(name) || 'commandwithargs'.startsWith(name) || 'cwa' === name || 'encodedcommand'.startsWith(name) || name === 'ec')) {
        const code = words.slice(index + 1).map((rest) => rest.value ?? rest.text).join(' ');
        context.dynamic('execute', code === '' ? `${context.program} (code from standard input)` : code, 'interpreter_code', `${context.program} ${value}`);
        return;
      }
      if (name !== '' && 'file'.startsWith(name)) {
        const script = words[index + 1];
        if (script !== undefined) context.file('execute', script, `${context.program} -File`);
        reportPathLikeArguments(context, words.slice(index + 2), `${context.program} script argument`);
        return;
      }
      if (POWERSHELL_VALUE_ALIASES.has(name) || (name.length >= 2 && POWERSHELL_VALUES.some((full) => full.startsWith(name)))) index += 1;
    }
    // No command, file or script: PowerShell reads its commands from standard input.
    codeFromStdin(context, 'other');
  },
};
const TCL = interpreter({ code: [] });
const R_INTERPRETER = interpreter({ code: ['-e'], short: 'ef', long: ['file', 'args'], scriptOptions: ['-f', '--file'] });
const EVAL_OPTION = interpreter({ code: ['-e', '--eval'], short: 'e', long: ['eval'] });

/** deno run|test|bench|serve script, deno eval code; other subcommands have no script. */
const DENO: CommandConvention = {
  handler(context) {
    const words = argumentsOf(context);
    const subcommand = words[0]?.value;
    const rest = words.slice(1);
    // `--env-file[=FILE]`, `--reload[=…]`, `--inspect[=…]`, `--lock[=FILE]` and `--unstable[-…]` take a value only after `=`:
    // `deno run --env-file x.ts` loads .env and runs x.ts.
    const parsed = parseArguments(rest, { short: 'cLp', long: ['config', 'import-map', 'location', 'cert', 'seed', 'v8-flags', 'ext'], stopAtOperand: true });
    reportEach(context, 'read', parsed.values('-c', '--config', '--env-file', '--cert', '--import-map'), 'deno option file');
    if (parsed.has('--env-file') && parsed.values('--env-file').length === 0) context.file('read', staticWord('.env'), 'deno --env-file (.env)');
    if (subcommand === 'eval') {
      const code = parsed.operands[0];
      if (code !== undefined) context.dynamic('execute', code.value ?? code.text, code.value === undefined ? code.reason : 'interpreter_code', 'deno eval');
    } else if (subcommand === 'run' || subcommand === 'test' || subcommand === 'bench' || subcommand === 'serve' || subcommand === 'compile') {
      const [script, ...args] = parsed.operands;
      if (script !== undefined) context.file('execute', script, `deno ${subcommand} script`);
      reportPathLikeArguments(context, args, 'deno script argument');
    } else if (words[0] !== undefined && looksLikePath(context, words[0]) && !['task', 'fmt', 'lint', 'check', 'install', 'add', 'remove', 'upgrade', 'doc', 'info', 'cache', 'repl'].includes(subcommand ?? '')) {
      context.file('execute', words[0], 'deno script');
      reportPathLikeArguments(context, rest, 'deno script argument');
    }
  },
};

const BUN_ENV_FILES = ['.env', '.env.local', '.env.development', '.env.production', '.env.test', '.env.development.local', '.env.production.local', '.env.test.local'];

/** Subcommands that manage packages and run no project code. */
const BUN_PACKAGE_COMMANDS = new Set(['install', 'i', 'add', 'a', 'remove', 'rm', 'update', 'outdated', 'pm', 'link', 'unlink', 'init', 'create', 'upgrade', 'completions', 'publish', 'patch', 'audit', 'info']);

/** bun: `-e`/`-p` code, `bun run file`, `bun file.ts`; `bun run name` is a package script. Bun loads `.env` files itself. */
const BUN: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'epr', long: ['eval', 'print', 'preload', 'cwd', 'env-file', 'config', 'tsconfig-override'], stopAtOperand: true });
    reportEach(context, 'read', parsed.values('--env-file', '--config'), 'bun option file');
    const subcommand = parsed.operands[0]?.value;
    // Bun loads these by itself before running any code (bun.sh/docs/runtime/env), which the code can print.
    if (!parsed.has('--env-file', '--no-env-file') && !BUN_PACKAGE_COMMANDS.has(subcommand ?? '')) reportEnvFiles(context, BUN_ENV_FILES, 'bun loads .env', parsed.last('--cwd'));
    const codes = parsed.values('-e', '--eval', '-p', '--print');
    for (const code of codes) context.dynamic('execute', code.value ?? code.text, code.value === undefined ? code.reason : 'interpreter_code', 'bun inline code');
    if (codes.length > 0) return;
    let [first, ...rest] = parsed.operands;
    const run = first?.value === 'run';
    if (run || first?.value === 'test') [first, ...rest] = rest;
    if (first !== undefined && (first.value === undefined || /\.(m?[jt]sx?|c[jt]s)$/.test(first.value) || first.value.includes('/'))) {
      context.file('execute', first, 'bun script');
      reportPathLikeArguments(context, rest, 'bun script argument');
    } else if (first !== undefined && !BUN_PACKAGE_COMMANDS.has(subcommand ?? '') && subcommand !== 'test') {
      // `bun run dev`, `bun dev`: a package.json script (only if there is one, without `run`).
      runPackageScript(context, first, rest, parsed.last('--cwd'), !run);
    }
  },
};

export const INTERPRETERS: Record<string, CommandConvention> = {
  python: PYTHON,
  pypy: PYTHON,
  node: NODE,
  nodejs: NODE,
  // TypeScript and Babel runners take node's options, `-e`/`-p` code included.
  'ts-node': NODE,
  'ts-node-esm': NODE,
  tsx: NODE,
  'babel-node': NODE,
  esno: NODE,
  R: R_INTERPRETER,
  elixir: EVAL_OPTION,
  groovy: EVAL_OPTION,
  coffee: EVAL_OPTION,
  perl: PERL,
  ruby: RUBY,
  php: PHP,
  osascript: OSASCRIPT,
  lua: LUA,
  luajit: LUA,
  Rscript: RSCRIPT,
  julia: JULIA,
  pwsh: POWERSHELL,
  powershell: POWERSHELL,
  tclsh: TCL,
  wish: TCL,
  deno: DENO,
  bun: BUN,
};

/** `python3.12`, `perl5.36`, `ruby3.2`, `pypy3`: versioned names of the same interpreters. */
export function interpreterName(program: string): string | undefined {
  const match = /^(python|pypy|perl|ruby|php|node|lua)[\d.]*$/.exec(program);
  return match?.[1];
}
