import { parseArguments } from '../argument-parser.js';
import type { CommandConvention } from '../command-context.js';
import { argumentsOf } from './operands.js';

/**
 * cd, pushd, popd change the directory every later relative path is resolved against, which is
 * how `cd ~/.ssh && cat id_rsa` reads a protected file without naming it. Changing directory is
 * not a file operation itself.
 */
export const DIRECTORY_CHANGES: Record<string, CommandConvention> = {
  cd: {
    handler(context) {
      // `cd -L dir`, `cd -P dir`; `cd -` (back to OLDPWD) is an operand, not an option.
      context.changeDirectory({ kind: 'cd', target: parseArguments(argumentsOf(context)).operands[0] });
    },
  },
  pushd: {
    handler(context) {
      const target = parseArguments(argumentsOf(context)).operands[0];
      // `pushd +N` rotates the stack: the analysis does not follow the rotation.
      if (target?.value !== undefined && /^[+-]\d+$/.test(target.value)) {
        context.changeDirectory({ kind: 'cd', target: { value: undefined, text: `pushd ${target.value}`, reason: 'unsupported' } });
        return;
      }
      context.changeDirectory({ kind: 'pushd', target });
    },
  },
  popd: {
    handler(context) {
      context.changeDirectory({ kind: 'popd' });
    },
  },
};
