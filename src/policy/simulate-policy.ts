import { normalizeAction, type ActionIssue } from '../actionpass/action.js';
import type { LoadedConfig } from '../config/load-config.js';
import type { Sha256 } from '../events/canonical.js';
import { SvcError } from '../errors.js';
import { runLedgerPass } from '../evidence/ledger-pass.js';
import { BudgetCounter } from '../projections/budgets.js';
import { compileConfigPolicy } from './config-policy.js';
import { type BudgetRule, type PolicyContext, type PolicyDecision, type PolicyMode } from './compile-policy.js';

/**
 * `svc policy simulate`: the decision the proxy would make for one action, with the trace of every
 * rule, and nothing recorded. The action goes through the same normalization (tenant stamped from
 * svc.yml) and the same compiled policy as at runtime; only budgets differ: they count 0 unless a
 * ledger is named, in which case they are counted from it by the same projection the proxy folds.
 */
export interface SimulationOptions {
  mode: PolicyMode;
  /** A ledger to count budgets from; without it every budget counts 0. */
  ledgerPath?: string;
  /** When budgets are counted (ms since the epoch). */
  now: number;
}

export type Simulation =
  | { ok: true; decision: PolicyDecision; actionHash: Sha256; payloadHash: Sha256; mode: PolicyMode; budgetsCounted: 'ledger' | 'zero' }
  | { ok: false; issues: ActionIssue[] };

export async function simulatePolicy(loaded: LoadedConfig, actionInput: unknown, options: SimulationOptions): Promise<Simulation> {
  const { config } = loaded;
  const policy = compileConfigPolicy(loaded);
  const normalized = normalizeAction(actionInput, config.tenant);
  if (!normalized.ok) return { ok: false, issues: normalized.issues };
  const context: PolicyContext =
    options.ledgerPath !== undefined && policy.budgets.length > 0
      ? (await budgetCounterFromLedger(options.ledgerPath, policy.budgets)).contextAt(options.now)
      : { now: options.now, countAllowed: () => 0 };
  return {
    ok: true,
    decision: policy.evaluate(normalized.action, context, options.mode),
    actionHash: normalized.actionHash,
    payloadHash: normalized.payloadHash,
    mode: options.mode,
    budgetsCounted: options.ledgerPath !== undefined ? 'ledger' : 'zero',
  };
}

/** Folds a ledger file, verified as it is read, into a budget counter. */
export async function budgetCounterFromLedger(path: string, budgets: readonly BudgetRule[]): Promise<BudgetCounter> {
  const counter = new BudgetCounter(budgets);
  let pass: Awaited<ReturnType<typeof runLedgerPass>>;
  try {
    pass = await runLedgerPass(path, { tolerateTornTail: true, onRecords: (records) => records.forEach(({ record }) => counter.apply(record)) });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new SvcError('ledger_missing', `${path} does not exist; name an existing ledger with --ledger, or leave it out to count budgets as 0`);
    throw error;
  }
  if (pass.defect) throw new SvcError('ledger_invalid', `${path}: ledger defect ${pass.defect.code} at seq ${pass.defect.seq}, byte offset ${pass.defect.offset}: ${pass.defect.message}; budgets cannot be counted from it`);
  return counter;
}
