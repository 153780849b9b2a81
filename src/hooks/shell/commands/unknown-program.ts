import type { CommandConvention } from '../command-context.js';
import { argumentsOf, reportPathLikeArguments } from './operands.js';

/**
 * A program without conventions here (npm, make, a project's own tool, …): its arguments that
 * look like paths are taken as files it reads — a word containing `/`, starting with `.`, or
 * naming something that exists — and so are `--option=value` values that do. Arguments known
 * only at run time are dynamic reads: they could name anything. This over-reports (a directory
 * given to `make -C` is "read"), which costs nothing unless the path is protected, and it is
 * blind to writes, which the programs named elsewhere in commands/ cover.
 */
export const UNKNOWN_PROGRAM: CommandConvention = {
  handler(context) {
    reportPathLikeArguments(context, argumentsOf(context), `${context.program || 'program'} argument`);
  },
};
