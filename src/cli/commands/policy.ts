import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { SvcError } from '../../errors.js';
import { rfc3339FieldsInRange } from '../../events/rfc3339.js';
import type { RuleTrace } from '../../policy/compile-policy.js';
import type { Simulation } from '../../policy/simulate-policy.js';
import { EXIT_OK, EXIT_USAGE } from '../context.js';
import { printJson, printLine } from '../output.js';

interface SimulateOptions {
  config?: string;
  mode: 'enforce' | 'hook';
  ledger?: string;
  at?: string;
  json?: boolean;
}

export function registerPolicy(program: Command): void {
  const policy = program.command('policy').description('check what the policy of svc.yml decides');
  policy
    .command('simulate')
    .description('decide one normalized action with the policy of svc.yml and show why, recording nothing')
    .argument('<action>', 'a normalized action (svc.action.v0) as a JSON file, or - to read it from stdin')
    .option('--config <file>', 'svc.yml to read the policy and tenant from (default: ./svc.yml)')
    .addOption(new Option('--mode <mode>', 'enforce: what the proxy, SDK and MCP wrapper decide (no matching rule: default_deny); hook: what a coding-agent hook decides (no matching rule: no_opinion)').choices(['enforce', 'hook']).default('enforce'))
    .option('--ledger <file>', 'count budgets from this ledger (verified as it is read); without it every budget counts 0')
    .option('--at <time>', 'the RFC 3339 time budgets are counted at (default: now)')
    .option('--json', 'print the decision, hashes and trace as JSON')
    .addHelpText('after', `
Prints the decision, its reasons, the deciding rule (or budget), the explanation the proxy would
return, the policyHash, the action's actionHash and payloadHash (after the tenant of svc.yml is
stamped on it, as the proxy does), and the trace: every rule, whether it matched, and the first
condition that failed. Nothing is written to the ledger.

Exit status: 0 when the action could be evaluated, whatever the decision (read the decision, or
.decision of --json, to gate on it); 2 when the action, svc.yml or the ledger is invalid.

Examples:
  svc policy simulate action.json
  svc policy simulate action.json --mode hook --json | jq .decision
  cat action.json | svc policy simulate - --ledger .svc/ledger.jsonl --at 2026-11-21T10:00:00Z`)
    .action(async (file: string, options: SimulateOptions) => {
      const { DEFAULT_CONFIG_FILE, loadConfig } = await import('../../config/load-config.js');
      const { simulatePolicy } = await import('../../policy/simulate-policy.js');
      const loaded = await loadConfig(options.config ?? DEFAULT_CONFIG_FILE);
      const input = await readActionFile(file);
      const now = parseTime(options.at);
      const simulation = await simulatePolicy(loaded, input, { mode: options.mode, now, ...(options.ledger !== undefined && { ledgerPath: options.ledger }) });
      if (!simulation.ok) {
        reportInvalidAction(file, simulation.issues, options.json === true);
        process.exitCode = EXIT_USAGE;
        return;
      }
      if (options.json) printJson(asJson(simulation));
      else printSimulation(simulation);
      process.exitCode = EXIT_OK;
    });
}

async function readActionFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SvcError('action_unreadable', code === 'ENOENT' ? `${file} does not exist` : `${file} cannot be read: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new SvcError('json_invalid', `${file === '-' ? 'stdin' : file} is not JSON: ${(error as Error).message}`);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseTime(value: string | undefined): number {
  if (value === undefined) return Date.now();
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value) || !rfc3339FieldsInRange(value) || Number.isNaN(ms)) {
    throw new SvcError('usage', `--at ${value} is not an RFC 3339 time such as 2026-11-21T10:00:00Z`);
  }
  return ms;
}

function reportInvalidAction(file: string, issues: readonly { path: string; message: string }[], json: boolean): void {
  const message = `${file === '-' ? 'stdin' : file} is not a valid svc.action.v0 action`;
  if (json) {
    printJson({ error: { code: 'schema_invalid', message, issues } });
    return;
  }
  process.stderr.write(`svc: ${message} [schema_invalid]\n`);
  for (const issue of issues) process.stderr.write(`  ${issue.path}: ${issue.message}\n`);
}

function asJson(simulation: Extract<Simulation, { ok: true }>) {
  const { decision } = simulation;
  return {
    decision: decision.decision,
    reasons: decision.reasons,
    ruleId: decision.ruleId,
    explanation: decision.explanation,
    policyHash: decision.policyHash,
    actionHash: simulation.actionHash,
    payloadHash: simulation.payloadHash,
    mode: simulation.mode,
    budgetsCounted: simulation.budgetsCounted,
    trace: decision.trace,
  };
}

function printSimulation(simulation: Extract<Simulation, { ok: true }>): void {
  const { decision } = simulation;
  printLine(`decision     ${decision.decision}`);
  printLine(`reasons      ${decision.reasons.join(', ')}`);
  printLine(`rule         ${decision.ruleId}`);
  printLine(`explanation  ${decision.explanation}`);
  printLine(`mode         ${simulation.mode}`);
  printLine(`policyHash   ${decision.policyHash}`);
  printLine(`actionHash   ${simulation.actionHash}`);
  printLine(`payloadHash  ${simulation.payloadHash}`);
  if (simulation.budgetsCounted === 'zero') printLine('budgets      counted as 0 (pass --ledger <file> to count them from a ledger)');
  printLine('trace');
  if (decision.trace.length === 0) printLine('  (the policy has no rules)');
  const width = Math.max(0, ...decision.trace.map((entry) => entry.ruleId.length));
  for (const entry of decision.trace) printLine(`  ${traceLine(entry, width)}`.trimEnd());
}

function traceLine(entry: RuleTrace, width: number): string {
  const id = entry.ruleId.padEnd(width);
  if (entry.budget) {
    const { count, max, window } = entry.budget;
    return `${entry.matched ? 'EXHAUSTED  ' : 'budget     '}  ${id}  ${count} of ${max} allowed in the last ${window}`;
  }
  if (entry.matched) return `matched      ${id}${entry.undetermined ? `  applied on doubt: ${entry.undetermined}` : ''}`;
  return `no match     ${id}  failed: ${entry.failed ?? '(no condition)'}`;
}
