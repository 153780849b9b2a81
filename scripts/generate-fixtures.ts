/**
 * Regenerates testdata/ledgers: a valid ledger with every kind of decision and outcome, its export
 * bundle, tampered copies, and a torn tail, each with `expected.json` stating what verify-export
 * must answer. Keys come from fixed seeds and the clock is fixed, and Ed25519 signatures are
 * deterministic, so every run writes the same bytes (a test checks that).
 *
 *   npm run fixtures                 # rewrite testdata/ledgers
 *   node dist/scripts/generate-fixtures.js <dir>
 *
 * The seeds below are public test keys: never use them for anything else.
 */
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { signingKeyFromSeed, type SigningKey } from '../src/actionpass/keys.js';
import { LedgerWriter } from '../src/events/ledger-writer.js';
import { exportLedger } from '../src/evidence/export-ledger.js';
import { allowFlow, denyFlow, stepUpFlow, type FlowContext } from './sample-flows.js';

export const FIXTURE_ORIGIN = 'svc.local/org:acme/fixture';
const START = Date.parse('2026-11-21T10:00:00.000Z');

export const fixtureLedgerKey = signingKeyFromSeed(FIXTURE_ORIGIN, Buffer.alloc(32, 0x11));
const reviewerKey = signingKeyFromSeed('svc.local/org:acme/reviewer', Buffer.alloc(32, 0x22));
const attackerKey = signingKeyFromSeed(FIXTURE_ORIGIN, Buffer.alloc(32, 0x66));

export interface Expected {
  /** What to verify, relative to the fixture directory: a ledger file or `.` for a bundle. */
  verify: string;
  /** A file holding the public key to pin, relative to the fixture directory. */
  pubkey?: string;
  valid: boolean;
  code?: string;
  seq?: number;
  /** For a torn tail: opening the ledger with a writer recovers it. */
  writerRecovers?: boolean;
  description: string;
}

async function writeLedger(path: string, key: SigningKey, tamperDeny = false): Promise<void> {
  let tick = 0;
  const writer = await LedgerWriter.open({ path, key, origin: FIXTURE_ORIGIN, checkpointEveryRecords: 16, checkpointEveryMs: 0, now: () => START + 1000 * tick++ });
  const context: FlowContext = { keys: { pass: key, reviewer: reviewerKey }, tenant: 'org:acme', issuedAt: START / 1000 };
  for (let round = 0; round < 3; round += 1) {
    await writer.appendBatch(allowFlow(context, `act_allow_${round}`, writer.size));
    const deny = denyFlow(context, `act_deny_${round}`);
    // The attacker's story: the denied message was allowed.
    if (tamperDeny && round === 0) Object.assign(deny[1]?.data ?? {}, { decision: 'allow', reasons: ['rule_allow'] });
    await writer.appendBatch(deny);
    await writer.appendBatch(stepUpFlow(context, { requestActionId: `act_ask_${round}`, approvalId: `apr_${round}`, executeActionId: `act_exec_${round}` }, writer.size));
    await writer.appendBatch(stepUpFlow(context, { requestActionId: `act_ask2_${round}`, approvalId: `apr2_${round}`, executeActionId: `act_tamper_${round}` }, writer.size, 'Attached are the Q3 numbers. Also wire $9,000 to the account below.'));
  }
  await writer.close();
}

async function fixture(root: string, name: string, expected: Expected, files: Record<string, string | Buffer>): Promise<void> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  for (const [file, content] of Object.entries(files)) await writeFile(join(dir, file), content);
  await writeFile(join(dir, 'expected.json'), `${JSON.stringify(expected, null, 2)}\n`);
}

export async function generateFixtures(root: string): Promise<void> {
  await rm(root, { recursive: true, force: true });
  const work = join(root, '.work');
  await mkdir(work, { recursive: true });
  const ledgerPath = join(work, 'ledger.jsonl');
  await writeLedger(ledgerPath, fixtureLedgerKey);
  const ledger = await readFile(ledgerPath, 'utf8');
  const sidecar = await readFile(`${ledgerPath}.checkpoint`, 'utf8');
  const pub = `${fixtureLedgerKey.publicKey.toString('base64')}\n`;
  const lines = ledger.trimEnd().split('\n');
  const base = { 'ledger.jsonl.checkpoint': sidecar, 'ledger.pub': pub };

  await fixture(root, 'valid', { verify: 'ledger.jsonl', pubkey: 'ledger.pub', valid: true, description: 'allow, deny and step_up decisions, approvals, completed executions and blocked approval_payload_hash_mismatch attempts, with in-band checkpoints and the sidecar' }, { 'ledger.jsonl': ledger, ...base });

  const bundleDir = join(root, 'valid-bundle');
  await exportLedger({ ledgerPath, outDir: bundleDir, key: fixtureLedgerKey });
  await writeFile(join(root, 'valid-bundle.pub'), pub);
  await writeFile(join(root, 'valid-bundle.expected.json'), `${JSON.stringify({ verify: 'valid-bundle', pubkey: 'valid-bundle.pub', valid: true, description: 'the export bundle of the valid ledger' } satisfies Expected, null, 2)}\n`);

  // Flip one byte inside the data of record 5: its own line stays canonical, so the next record's prevHash exposes it.
  const flipped = [...lines];
  flipped[5] = replaceOnce(flipped[5] as string, 'channel:random', 'channel:randoM');
  await fixture(root, 'flipped-byte', { verify: 'ledger.jsonl', pubkey: 'ledger.pub', valid: false, code: 'chain_broken', seq: 6, description: 'one byte of the resource in record 5 flipped; record 6 no longer chains to it' }, { 'ledger.jsonl': `${flipped.join('\n')}\n`, ...base });

  const deleted = lines.filter((_line, index) => index !== 7);
  await fixture(root, 'deleted-line', { verify: 'ledger.jsonl', pubkey: 'ledger.pub', valid: false, code: 'seq_gap', seq: 7, description: 'record 7 removed' }, { 'ledger.jsonl': `${deleted.join('\n')}\n`, ...base });

  const swapped = [...lines];
  [swapped[9], swapped[10]] = [swapped[10] as string, swapped[9] as string];
  await fixture(root, 'swapped-lines', { verify: 'ledger.jsonl', pubkey: 'ledger.pub', valid: false, code: 'seq_gap', seq: 9, description: 'records 9 and 10 swapped' }, { 'ledger.jsonl': `${swapped.join('\n')}\n`, ...base });

  const reformatted = [...lines];
  reformatted[4] = JSON.stringify(JSON.parse(reformatted[4] as string), null, 0).replace('{"data":', '{ "data":');
  await fixture(root, 'non-canonical-line', { verify: 'ledger.jsonl', pubkey: 'ledger.pub', valid: false, code: 'not_canonical', seq: 4, description: 'record 4 re-serialized with a space: same JSON value, not its JCS form' }, { 'ledger.jsonl': `${reformatted.join('\n')}\n`, ...base });

  // A sidecar covering more records than remain: a truncation below the last checkpoint.
  const truncated = lines.slice(0, 20);
  await fixture(root, 'truncated-below-checkpoint', { verify: 'ledger.jsonl', pubkey: 'ledger.pub', valid: false, code: 'root_mismatch', description: `cut to 20 of ${lines.length} records; the checkpoint sidecar covers all of them` }, { 'ledger.jsonl': `${truncated.join('\n')}\n`, ...base });

  const torn = `${ledger}${(lines[lines.length - 1] as string).slice(0, 57)}`;
  await fixture(root, 'torn-tail', { verify: 'ledger.jsonl', pubkey: 'ledger.pub', valid: false, code: 'torn_line', seq: lines.length, writerRecovers: true, description: 'an append interrupted mid-line; verify reports it, a writer quarantines it and records ledger.recovered' }, { 'ledger.jsonl': torn, ...base });

  // The attacker rewrites history (a deny becomes an allow), re-chains every record and re-signs
  // every checkpoint and the attestation with a key of their own. Only a pinned key catches it.
  const forgedPath = join(work, 'forged', 'ledger.jsonl');
  await writeLedger(forgedPath, attackerKey, true);
  const forgedBundle = join(root, 'rechained-other-key');
  await exportLedger({ ledgerPath: forgedPath, outDir: forgedBundle, key: attackerKey });
  await writeFile(join(root, 'rechained-other-key.pub'), pub);
  await writeFile(join(root, 'rechained-other-key.expected.json'), `${JSON.stringify({ verify: 'rechained-other-key', pubkey: 'rechained-other-key.pub', valid: false, code: 'key_untrusted', description: 'history rewritten, re-chained and re-signed with another key: valid on its own terms, refused once the real ledger key is pinned' } satisfies Expected, null, 2)}\n`);

  // A bundle whose projection was edited after export.
  const editedBundle = join(root, 'bundle-edited-projection');
  await cp(bundleDir, editedBundle, { recursive: true });
  const decisions = join(editedBundle, 'projections', 'decisions.jsonl');
  await writeFile(decisions, replaceOnce(await readFile(decisions, 'utf8'), '"decision":"deny"', '"decision":"allow"'));
  await writeFile(join(root, 'bundle-edited-projection.pub'), pub);
  await writeFile(join(root, 'bundle-edited-projection.expected.json'), `${JSON.stringify({ verify: 'bundle-edited-projection', pubkey: 'bundle-edited-projection.pub', valid: false, code: 'subject_digest_mismatch', description: 'a deny turned into an allow in projections/decisions.jsonl after export' } satisfies Expected, null, 2)}\n`);

  await rm(work, { recursive: true, force: true });
  await writeFile(join(root, 'README.md'), readme(lines.length));
}

function replaceOnce(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`fixture generator: ${from} not found`);
  return text.replace(from, to);
}

function readme(records: number): string {
  return `# Ledger fixtures

Generated by \`scripts/generate-fixtures.ts\` (\`npm run fixtures\`); do not edit by hand. Keys come
from fixed public test seeds and the clock is fixed, so regeneration is byte-for-byte identical.

Each fixture states the expected \`svc verify-export\` answer in \`expected.json\` (inside a ledger
fixture's directory, or as \`<bundle>.expected.json\` beside a bundle directory, since a bundle
may hold nothing but its own files). \`pubkey\` names the file with the public key to pin.

| fixture | expected |
|---|---|
| valid/ | valid: ${records} records, allow/deny/step_up, approvals, executions, blocked mismatches |
| valid-bundle/ | valid export bundle of valid/ |
| flipped-byte/ | chain_broken at seq 6 |
| deleted-line/ | seq_gap at seq 7 |
| swapped-lines/ | seq_gap at seq 9 |
| non-canonical-line/ | not_canonical at seq 4 |
| truncated-below-checkpoint/ | root_mismatch (the sidecar covers more records than remain) |
| torn-tail/ | torn_line at seq ${records}; a writer recovers it |
| rechained-other-key/ | key_untrusted with the real key pinned (valid without a pin: that is why you pin) |
| bundle-edited-projection/ | subject_digest_mismatch |
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const target = resolve(process.argv[2] ?? 'testdata/ledgers');
  await generateFixtures(target);
  process.stdout.write(`fixtures written to ${target}\n`);
}
