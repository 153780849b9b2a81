import { parseArguments, staticWord } from '../argument-parser.js';
import type { CommandContext, CommandConvention } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { argumentsOf } from './operands.js';
import { UNKNOWN_PROGRAM } from './unknown-program.js';

/**
 * kubectl (and OpenShift's oc): `create secret|configmap --from-file` uploads a file, or every
 * file of a directory, into the cluster, and `--from-file=key=path` names it after a key;
 * `cp` copies between this machine and a pod (`pod:path` is the pod's side), a directory as a
 * tree. Everything else gets the unknown-program heuristic.
 */
const KUBECTL: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'ncs', long: VALUE_OPTIONS });
    for (const file of parsed.values('--from-file')) fromFile(context, file);
    const operands = parsed.operands;
    if (operands[0]?.value === 'cp') copyWithPod(context, operands.slice(1));
    UNKNOWN_PROGRAM.handler(context);
  },
};

/** `--from-file=path` or `--from-file=key=path`: a key is a name, never a path (no `/`). */
function fromFile(context: CommandContext, word: Word): void {
  if (word.value === undefined) {
    context.dynamic('read', word.text, word.reason, `${context.program} --from-file`);
    return;
  }
  const equals = word.value.indexOf('=');
  const path = staticWord(equals > 0 && !word.value.slice(0, equals).includes('/') ? word.value.slice(equals + 1) : word.value);
  context.file('read', path, `${context.program} --from-file`, context.kindOf(path) === 'directory' ? { recursive: true } : {});
}

/** kubectl's options that take a value (global ones, and cp's `-c`), so that `-n ns cp …` is a cp. */
const VALUE_OPTIONS = ['namespace', 'context', 'cluster', 'user', 'kubeconfig', 'server', 'token', 'as', 'as-group', 'container', 'retries', 'request-timeout', 'certificate-authority', 'client-certificate', 'client-key', 'cache-dir', 'from-file', 'from-env-file', 'from-literal', 'type', 'output', 'filename', 'selector'];

/** `kubectl cp SRC DST`: the local side of the copy, read as a source or written as a destination. */
function copyWithPod(context: CommandContext, [source, destination]: readonly Word[]): void {
  // kubectl's own rule: a colon makes `[namespace/]pod:path`, unless the path starts like a local one.
  const local = (word: Word | undefined): word is Word => word !== undefined && (word.value === undefined || !word.value.includes(':') || /^[./~]/.test(word.value));
  if (local(source)) context.file('read', source, `${context.program} cp source`, { recursive: true });
  if (local(destination)) context.file('write', destination, `${context.program} cp destination`, { recursive: true });
}

export const KUBERNETES: Record<string, CommandConvention> = { kubectl: KUBECTL, oc: KUBECTL };
