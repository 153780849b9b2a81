import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import * as z from 'zod';
import { readTrustIndex } from '../actionpass/trust-store.js';
import { isReviewerIdentity } from '../actionpass/trust-store.js';
import type { LoadedConfig } from '../config/load-config.js';
import { resolveFromConfig } from '../config/load-config.js';
import { SvcError } from '../errors.js';
import { osLogin, PinBook } from './pin-book.js';
import { decidePinCheck, type ToolStanding } from './pin-check.js';
import { checkPinLock, readPinLock, updatePinLock, type PinEntry, type PinProblem } from './pin-lock.js';
import { resolveServerSpec } from './server-spec.js';
import { DEFINITION_FIELDS, presentTool, type PresentedTool, type ToolDefinition } from './tool-definition.js';
import { upstreamTransport, type UpstreamSpec } from './upstream-transport.js';

/**
 * `svc mcp pins list | approve | reset`: what a person runs to review the lock and accept a
 * changed definition. Approving reads the definitions from the upstream itself (with the SDK's
 * Client), so what gets signed is what the server presents now, and `--hash` can bind the
 * approval to the exact hash the person reviewed (from the ledger's mcp.tool.changed record).
 */

function lockPlaces(loaded: LoadedConfig) {
  const { config } = loaded;
  return {
    lockFile: resolveFromConfig(loaded, config.mcp.lock),
    trustFile: resolveFromConfig(loaded, config.keys.trust),
    keysDir: resolveFromConfig(loaded, config.keys.dir),
    tenant: config.tenant,
  };
}

// ---------------------------------------------------------------------------------------------
// list

export interface ListedPin extends Omit<PinEntry, 'definition' | 'signature'> {
  status: 'valid' | PinProblem['code'];
  problem?: string;
}

export interface PinListing {
  lockFile: string;
  valid: boolean;
  pins: ListedPin[];
}

export async function listPins(loaded: LoadedConfig, server?: string): Promise<PinListing> {
  const places = lockPlaces(loaded);
  const lock = await readPinLock(places.lockFile);
  const problems = checkPinLock(lock, await readTrustIndex(places.trustFile));
  const pins = lock.pins.map((entry, index): ListedPin => {
    const problem = problems.find((candidate) => candidate.index === index);
    const { definition: _definition, signature: _signature, ...rest } = entry;
    return { ...rest, status: problem?.code ?? 'valid', ...(problem && { problem: problem.message }) };
  });
  return { lockFile: places.lockFile, valid: problems.length === 0, pins: server === undefined ? pins : pins.filter((pin) => pin.server === server) };
}

// ---------------------------------------------------------------------------------------------
// approve

export interface ApproveOptions {
  server?: string;
  name?: string;
  command?: readonly string[];
  tools?: readonly string[];
  all?: boolean;
  hash?: string;
  as?: string;
  dryRun?: boolean;
}

export interface ApprovalLine {
  tool: string;
  /** Where the tool stood before: changed, unpinned, or pinned (approving it again re-signs it). */
  was: ToolStanding['status'];
  pinnedHash?: string;
  presentedHash: string;
  /** Definition fields that differ from the pinned definition. */
  changedFields: string[];
}

export interface ApproveResult {
  server: string;
  lockFile: string;
  pinnedBy: string;
  approved: ApprovalLine[];
  dryRun: boolean;
}

export async function approvePins(loaded: LoadedConfig, options: ApproveOptions): Promise<ApproveResult> {
  const spec = resolveServerSpec(loaded, options);
  if (options.all !== true && (options.tools ?? []).length === 0) throw new SvcError('usage', 'name the tools to approve with --tool <name...>, or approve every changed and unpinned tool with --all');
  if (options.hash !== undefined && (options.all === true || options.tools?.length !== 1)) throw new SvcError('usage', '--hash binds the approval of exactly one --tool to the definition hash you reviewed');
  if (options.as !== undefined && !isReviewerIdentity(options.as)) throw new SvcError('usage', `--as ${JSON.stringify(options.as)} is not user:<email>`);
  const pinnedBy = options.as ?? `os:${osLogin()}`;
  const places = lockPlaces(loaded);
  const book = new PinBook(places);
  const presented = await fetchDefinitions(spec);
  const lock = await readPinLock(places.lockFile);
  const byTool = new Map(lock.pins.filter((entry) => entry.server === spec.name).map((entry) => [entry.tool, entry]));
  const problems = new Set(checkPinLock(lock, await readTrustIndex(places.trustFile)).filter((problem) => problem.server === spec.name).map((problem) => problem.tool));
  const standings = decidePinCheck({ ok: true, byTool }, presented, 'require');

  const wanted = options.all === true ? [...standings.keys()].filter((tool) => standings.get(tool)?.status !== 'pinned' || problems.has(tool)) : [...new Set(options.tools)];
  const lines: ApprovalLine[] = [];
  const definitions: ToolDefinition[] = [];
  for (const tool of wanted) {
    const standing = standings.get(tool);
    const shown = presented.find((candidate) => candidate.name === tool);
    if (standing === undefined || shown === undefined) throw new SvcError('mcp_tool_unknown', `${spec.name} does not list a tool named ${JSON.stringify(tool)}; listed: ${[...standings.keys()].join(', ') || '(none)'}`);
    if (standing.status === 'invalid' || 'invalid' in shown) throw new SvcError('mcp_tool_definition_invalid', `${spec.name}/${tool} cannot be pinned: ${standing.status === 'invalid' ? standing.message : 'its definition has no canonical JSON form'}`);
    if (options.hash !== undefined && shown.hash !== options.hash) {
      throw new SvcError('mcp_definition_hash_mismatch', `${spec.name}/${tool} presents ${shown.hash} now, not the ${options.hash} you reviewed; nothing was approved`);
    }
    const pinned = byTool.get(tool);
    lines.push({ tool, was: standing.status, ...(pinned && { pinnedHash: pinned.definitionHash }), presentedHash: shown.hash, changedFields: pinned ? changedFields(pinned.definition, shown.definition) : [] });
    definitions.push(shown.definition);
  }
  if (options.dryRun !== true && definitions.length > 0) await book.approve(spec.name, definitions, pinnedBy);
  return { server: spec.name, lockFile: places.lockFile, pinnedBy, approved: lines, dryRun: options.dryRun === true };
}

/** Every tool the upstream lists (all pages), hashed; definitions are taken as sent, never re-parsed into a schema's shape. */
export async function fetchDefinitions(spec: UpstreamSpec): Promise<PresentedTool[]> {
  const client = new Client({ name: 'svc-mcp-pins', version: '0.6.1' });
  const page = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });
  try {
    await client.connect(upstreamTransport(spec));
  } catch (error) {
    throw new SvcError('mcp_upstream_unavailable', `cannot reach ${spec.name}: ${(error as Error).message}`);
  }
  try {
    const presented: PresentedTool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let pages = 0; pages < 1000; pages += 1) {
      const result = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, page);
      for (const tool of result.tools) {
        const shown = presentTool(tool);
        if (shown) presented.push(shown);
      }
      if (result.nextCursor === undefined || result.nextCursor === '' || seen.has(result.nextCursor)) return presented;
      seen.add(result.nextCursor);
      cursor = result.nextCursor;
    }
    return presented;
  } catch (error) {
    throw new SvcError('mcp_upstream_unavailable', `${spec.name} did not list its tools: ${(error as Error).message}`);
  } finally {
    await client.close().catch(() => undefined);
  }
}

function changedFields(pinned: ToolDefinition, presented: ToolDefinition): string[] {
  return DEFINITION_FIELDS.filter((field) => JSON.stringify(pinned[field]) !== JSON.stringify(presented[field]));
}

// ---------------------------------------------------------------------------------------------
// reset

export interface ResetResult {
  lockFile: string;
  server: string;
  removed: string[];
}

/** Removes pins: the tools are pinned again on first use, or must be approved under `firstUse: require`. */
export async function resetPins(loaded: LoadedConfig, server: string, options: { tools?: readonly string[]; all?: boolean }): Promise<ResetResult> {
  if (options.all !== true && (options.tools ?? []).length === 0) throw new SvcError('usage', 'name the tools to reset with --tool <name...>, or every pin of the server with --all');
  const places = lockPlaces(loaded);
  const removed = await updatePinLock(places.lockFile, (current) => {
    const drop = (entry: PinEntry) => entry.server === server && (options.all === true || (options.tools ?? []).includes(entry.tool));
    const gone = current.pins.filter(drop).map((entry) => entry.tool);
    if (gone.length === 0) return { result: gone };
    return { next: { ...current, pins: current.pins.filter((entry) => !drop(entry)) }, result: gone };
  });
  return { lockFile: places.lockFile, server, removed };
}
