import { signApprovalArtifact } from '../actionpass/approval-artifact.js';
import { loadReviewerKey } from '../actionpass/key-ring.js';
import { DEFAULT_CONFIG_FILE, loadConfig, resolveFromConfig, type LoadedConfig } from '../config/load-config.js';
import { SvcError } from '../errors.js';
import { foldLedgerFile } from '../evidence/fold-ledger.js';
import { RuntimeState, type OpenApproval } from '../projections/runtime-state.js';
import { Enforcer } from '../proxy/enforcer.js';
import { readProxyAddress } from '../proxy/proxy-address.js';

/**
 * The reviewer's side of an approval, for `svc approvals`. Reading needs only the ledger file.
 * Answering signs with the reviewer's own key and is delivered to the running proxy, which checks
 * and records it; when no proxy is listening, the answer is recorded by opening the ledger
 * directly, through the same checks.
 */
export interface ApprovalView {
  approvalId: string;
  actionId: string;
  status: string;
  requestedAt: string;
  actionHash: string;
  payloadHash: string;
  agentId?: string;
  tool?: string;
  resource?: string;
  payload?: unknown;
  approvedBy?: string;
}

export async function readApprovals(ledgerPath: string): Promise<ApprovalView[]> {
  return (await foldState(ledgerPath)).openApprovals().map(view);
}

export async function readApproval(ledgerPath: string, approvalId: string): Promise<ApprovalView> {
  return view(await openApproval(await foldState(ledgerPath), approvalId));
}

interface AnswerOptions {
  approvalId: string;
  reviewer: string;
  reason: string;
  config?: string;
  ledger?: string;
  /** The running proxy's URL, when it is not at proxy.host:proxy.port of svc.yml. */
  proxy?: string;
}

export interface Answered {
  approvalId: string;
  payloadHash: string;
  ledger: { seq: number; hash: string };
  /** How the answer reached the ledger: the proxy at this URL, or the ledger file directly. */
  via: string;
}

export interface SignedApproval {
  approvalId: string;
  payloadHash: string;
  /** The approval artifact (a compact JWS), which whoever presents it has recorded as the grant. */
  artifact: string;
}

/**
 * Signs the approval artifact without recording it: for an approval opened through the SDK, whose
 * process holds the ledger, the service presents the artifact itself (`authorize(action, {
 * approval: artifact })`) and its enforcer records the grant with the decision it unlocks.
 */
export async function signApproval(options: AnswerOptions & { validForSeconds: number }): Promise<SignedApproval> {
  return signArtifact(await workspaceOf(options), options);
}

/** Signs the approval artifact and has it recorded: by the running proxy, or in the ledger directly. */
export async function approve(options: AnswerOptions & { validForSeconds: number }): Promise<Answered> {
  const workspace = await workspaceOf(options);
  const signed = await signArtifact(workspace, options);
  const { loaded, ledgerPath } = workspace;
  const delivered = await deliver(loaded, options.proxy ?? (await readProxyAddress(ledgerPath)), `/approvals/${encodeURIComponent(signed.approvalId)}/artifact`, { artifact: signed.artifact }, async (enforcer) => {
    const { receipt } = await enforcer.grantApproval(signed.approvalId, signed.artifact);
    return receipt;
  });
  return { approvalId: signed.approvalId, payloadHash: signed.payloadHash, ...delivered };
}

async function workspaceOf(options: AnswerOptions): Promise<{ loaded: LoadedConfig; ledgerPath: string }> {
  const loaded = await loadConfig(options.config ?? DEFAULT_CONFIG_FILE);
  return { loaded, ledgerPath: options.ledger ?? resolveFromConfig(loaded, loaded.config.ledger.path) };
}

async function signArtifact({ loaded, ledgerPath }: { loaded: LoadedConfig; ledgerPath: string }, options: AnswerOptions & { validForSeconds: number }): Promise<SignedApproval> {
  if (!Number.isInteger(options.validForSeconds) || options.validForSeconds < 60 || options.validForSeconds > 7 * 86_400) {
    throw new SvcError('usage', '--valid-for is a number of seconds between 60 and 604800');
  }
  const approval = await openApproval(await foldState(ledgerPath), options.approvalId);
  if (approval.status !== 'pending') throw new SvcError('approval_already_granted', `approval ${approval.approvalId} is already ${approval.status}`);
  const key = await loadReviewerKey(options.reviewer, resolveFromConfig(loaded, loaded.config.keys.trust));
  const iat = Math.floor(Date.now() / 1000);
  const artifact = signApprovalArtifact(key, {
    approvalId: approval.approvalId,
    actionId: approval.actionId,
    actionHash: approval.actionHash,
    payloadHash: approval.payloadHash,
    approvedBy: options.reviewer,
    mode: 'human',
    reason: options.reason,
    iat,
    exp: iat + options.validForSeconds,
    tenant: loaded.config.tenant,
  });
  return { approvalId: approval.approvalId, payloadHash: approval.payloadHash, artifact };
}

export async function reject(options: AnswerOptions): Promise<Answered> {
  const { loaded, ledgerPath } = await workspaceOf(options);
  const approval = await openApproval(await foldState(ledgerPath), options.approvalId);
  const delivered = await deliver(loaded, options.proxy ?? (await readProxyAddress(ledgerPath)), `/approvals/${encodeURIComponent(approval.approvalId)}/reject`, { rejectedBy: options.reviewer, reason: options.reason }, (enforcer) =>
    enforcer.rejectApproval(approval.approvalId, options.reviewer, options.reason),
  );
  return { approvalId: approval.approvalId, payloadHash: approval.payloadHash, ...delivered };
}

async function foldState(ledgerPath: string): Promise<RuntimeState> {
  const state = new RuntimeState(0);
  await foldLedgerFile(ledgerPath, state);
  return state;
}

async function openApproval(state: RuntimeState, approvalId: string): Promise<OpenApproval> {
  const approval = state.approval(approvalId);
  if (approval) return approval;
  const settled = state.settledApproval(approvalId);
  if (settled) throw new SvcError(settled === 'used' ? 'approval_used' : 'approval_rejected', `approval ${approvalId} is already ${settled}`);
  throw new SvcError('approval_unknown', `no open approval ${approvalId} in the ledger; svc approvals list shows the open ones`);
}

function view(approval: OpenApproval): ApprovalView {
  const action = approval.action;
  return {
    approvalId: approval.approvalId,
    actionId: approval.actionId,
    status: approval.status,
    requestedAt: approval.requestedAt,
    actionHash: approval.actionHash,
    payloadHash: approval.payloadHash,
    ...(action && { agentId: action.actor.agentId, tool: action.capability.tool, resource: action.capability.resource, payload: action.capability.payload }),
    ...(approval.approvedBy !== undefined && { approvedBy: approval.approvedBy }),
  };
}

/** Posts to the running proxy; with no proxy listening, records through an Enforcer of its own. */
async function deliver(
  loaded: LoadedConfig,
  proxyUrl: string | undefined,
  path: string,
  body: object,
  direct: (enforcer: Enforcer) => Promise<{ seq: number; hash: string }>,
): Promise<{ ledger: { seq: number; hash: string }; via: string }> {
  const { host, port } = loaded.config.proxy;
  const base = proxyUrl?.replace(/\/+$/, '') ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const url = `${base}${path}`;
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    if (!isConnectionRefused(error) || proxyUrl !== undefined) throw new SvcError('proxy_unreachable', `cannot reach svc proxy at ${url}: ${(error as Error).message}`);
    // No proxy at the configured address: record directly. If a proxy runs elsewhere, it holds the
    // ledger lock and this fails with ledger_locked; --proxy <url> then names where it listens.
    const enforcer = await Enforcer.open(loaded).catch((error: unknown) => {
      if (!(error instanceof SvcError && error.code === 'ledger_locked')) throw error;
      throw new SvcError(
        'ledger_locked',
        `no svc proxy answers at ${url}, and another process holds the ledger: a proxy listening elsewhere (name it with --proxy <url>), or a service using the SDK (approve with --print-artifact and have it present the artifact: authorize(action, { approval: artifact }))`,
      );
    });
    try {
      const receipt = await direct(enforcer);
      return { ledger: { seq: receipt.seq, hash: receipt.hash }, via: `ledger ${enforcer.writer.path}` };
    } finally {
      await enforcer.close();
    }
  }
  const answer = (await response.json().catch(() => ({}))) as { error?: { code: string; message: string }; ledger?: { seq: number; hash: string } };
  if (!response.ok || !answer.ledger) throw new SvcError(answer.error?.code ?? 'proxy_error', answer.error?.message ?? `svc proxy answered ${response.status}`);
  return { ledger: answer.ledger, via: `svc proxy at ${url}` };
}

function isConnectionRefused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code === 'ECONNREFUSED';
}
