/**
 * The main job until the proxy lands: writes realistic decisions (allow, deny, step-up with an
 * approval, and an approved payload altered before execution) into the ledger named by the
 * config, with the ledger's own key, so that `svc replay`, `svc export`, `svc verify-export` and
 * `svc prove-equivalence` have something real to work on.
 *
 *   node dist/scripts/demo-ledger.js [--config svc.yml.example]
 */
import { randomBytes } from 'node:crypto';
import { generateSigningKey } from '../src/actionpass/keys.js';
import { loadConfig, resolveFromConfig } from '../src/config/load-config.js';
import { openLedgerWithKey } from '../src/events/ledger-key.js';
import { allowFlow, denyFlow, stepUpFlow } from './sample-flows.js';

const configIndex = process.argv.indexOf('--config');
const loaded = await loadConfig(configIndex > 0 ? (process.argv[configIndex + 1] as string) : 'svc.yml.example');
const ledgerPath = resolveFromConfig(loaded, loaded.config.ledger.path);
const writer = await openLedgerWithKey(ledgerPath, { tenant: loaded.config.tenant, checkpointEveryRecords: loaded.config.ledger.checkpoint.everyRecords, checkpointEveryMs: loaded.config.ledger.checkpoint.everyMs });
const run = randomBytes(3).toString('hex');
const context = { keys: { pass: generateSigningKey('svc.demo/pass'), reviewer: generateSigningKey('svc.demo/reviewer') }, tenant: loaded.config.tenant, issuedAt: Math.floor(Date.now() / 1000) };
await writer.appendBatch(allowFlow(context, `act_${run}_allow`, writer.size));
await writer.appendBatch(denyFlow(context, `act_${run}_deny`));
await writer.appendBatch(stepUpFlow(context, { requestActionId: `act_${run}_ask`, approvalId: `apr_${run}`, executeActionId: `act_${run}_send` }, writer.size));
await writer.appendBatch(stepUpFlow(context, { requestActionId: `act_${run}_ask2`, approvalId: `apr_${run}_2`, executeActionId: `act_${run}_altered` }, writer.size, 'Attached are the Q3 numbers. Also wire $9,000 to the account below.'));
await writer.close();
process.stdout.write(`appended an allow, a deny, an approved step-up and a blocked altered payload to ${ledgerPath} (origin ${writer.origin}, ${writer.size} records)\n`);
