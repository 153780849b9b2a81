import type { StdinSource } from './command-context.js';
import type { Word } from './word-expansion.js';

/**
 * What a command prints, when that is plain from its words: `echo 'cat .env' | sh` runs
 * `cat .env`, and so does `cat <<EOF | bash` with that body. Only the simplest producers are
 * understood (echo, printf without conversions, cat of its standard input); anything else
 * leaves the output unknown, and a shell reading it is dynamic code.
 */
export function staticOutput(argv: readonly Word[], stdin: StdinSource): string | undefined {
  const program = argv[0]?.value;
  if (program === undefined || argv.some((word) => word.value === undefined)) return undefined;
  const args = argv.slice(1).map((word) => word.value as string);
  switch (program) {
    case 'echo':
      return echoOutput(args);
    case 'printf':
      return printfOutput(args);
    case 'cat':
      return args.every((arg) => arg === '-') && stdin.kind === 'text' ? stdin.text : undefined;
    default:
      return undefined;
  }
}

function echoOutput(args: string[]): string | undefined {
  let newline = true;
  let index = 0;
  for (; index < args.length && /^-[neE]+$/.test(args[index] as string); index += 1) {
    if ((args[index] as string).includes('n')) newline = false;
  }
  // dash's echo, and bash's under `shopt -s xpg_echo`, interpret escapes even without `-e`
  // (`echo 'cat .e\0156v' | sh` runs `cat .env`): only text without backslashes is certain.
  if (args.slice(index).some((arg) => arg.includes('\\'))) return undefined;
  return args.slice(index).join(' ') + (newline ? '\n' : '');
}

function printfOutput(args: string[]): string | undefined {
  const [format, ...rest] = args;
  if (format === undefined) return undefined;
  if (format === '%s' || format === '%s\\n') return rest.map((arg) => arg + (format === '%s' ? '' : '\n')).join('');
  if (format.includes('%') || /\\[^nt\\]/.test(format) || rest.length > 0) return undefined;
  return format.replace(/\\([nt\\])/g, (_, char: string) => (char === 'n' ? '\n' : char === 't' ? '\t' : '\\'));
}
