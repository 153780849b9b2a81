import { staticWord } from '../argument-parser.js';
import type { CommandContext, CommandConvention } from '../command-context.js';
import { argumentsOf, reportPathLikeArguments } from './operands.js';

/**
 * Programs whose input language names other files to read in, and prints them: the C
 * preprocessor (`echo '#include ".env"' | cpp` prints `.env`, and a compile error quotes it), m4
 * (`include(.env)`, `undivert(.env)`; `syscmd`/`esyscmd` run shell commands), roff (`.so .env`,
 * `.nx`; `.pso` and `.sy` run commands). When the input is text the command line itself gives
 * (a heredoc, a here-string, what `echo` pipes in), its directives are followed: each file named
 * is read, each command is code. A file given as an operand is the program's own, as another
 * language's script is: opaque (docs/threat-model.md).
 */
export type Language = 'c' | 'm4' | 'roff';

const INCLUDES: Readonly<Record<Language, RegExp>> = {
  c: /^[ \t]*#[ \t]*(?:include|include_next|import|embed)[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>)/gm,
  m4: /\b(?:s?include|undivert)\([ \t]*`?([^)'`\s,]+)'?[ \t]*\)/g,
  roff: /^[.'][ \t]*(?:so|nx|mso)[ \t]+(\S+)/gm,
};

const COMMANDS: Readonly<Record<Language, RegExp | undefined>> = {
  c: undefined,
  m4: /\be?syscmd\(/,
  roff: /^[.'][ \t]*(?:pso|sy|pi|opena?)\b/m,
};

/** Follows the directives of `text`, input in `language` the command line gives the program. */
function followDirectives(context: CommandContext, language: Language, text: string): void {
  const via = `${context.program} (a file its input names)`;
  for (const match of text.matchAll(INCLUDES[language])) {
    const path = match[1] ?? match[2];
    if (path !== undefined) context.file('read', staticWord(path), via);
  }
  const commands = COMMANDS[language];
  if (commands?.test(text) === true) context.dynamic('execute', text.slice(0, 200), 'interpreter_code', `${context.program} (commands its input runs)`);
}

/**
 * Follows the directives of the standard input, when the command line gives it as text. Whether
 * the program reads it (no input file, or `-`) is not worked out: input it ignores costs nothing.
 */
export function followStandardInput(context: CommandContext, language: Language): void {
  if (context.stdin.kind === 'text' && context.stdin.text !== undefined) followDirectives(context, language, context.stdin.text);
}

function includeProcessor(language: Language): CommandConvention {
  return {
    handler(context) {
      reportPathLikeArguments(context, argumentsOf(context), `${context.program} argument`);
      followStandardInput(context, language);
    },
  };
}

export const INCLUDE_PROCESSORS: Record<string, CommandConvention> = {
  m4: includeProcessor('m4'),
  groff: includeProcessor('roff'),
  troff: includeProcessor('roff'),
  nroff: includeProcessor('roff'),
  soelim: includeProcessor('roff'),
};
