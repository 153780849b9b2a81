import { createSvc } from '../../src/actionpass/sdk.js';
import { SvcError } from '../../src/errors.js';

/**
 * Run by test/sdk/sdk.test.ts under a file size limit (bash `ulimit -f`), so the ledger fills up
 * for real and the kernel refuses the next write (EFBIG, as a full disk refuses with ENOSPC).
 * Authorizes until the SDK reports the ledger unavailable, then presents two passes issued before
 * that: one with its own payload, one with another. Prints what each call ended with, as JSON.
 */
process.on('SIGXFSZ', () => undefined);

const config = process.argv[2];
if (config === undefined) throw new Error('usage: sdk-ledger-full.js <svc.yml>');

async function codeOf(run: () => Promise<unknown>): Promise<{ code: string; refusal?: unknown } | 'ok'> {
  try {
    await run();
    return 'ok';
  } catch (error) {
    if (!(error instanceof SvcError)) throw error;
    return { code: error.code, ...('refusal' in error && { refusal: error.refusal }) };
  }
}

const svc = await createSvc({ config });
const passes: { token: string; payload: { channel: string; text: string } }[] = [];
let filled: { code: string; refusal?: unknown } | 'ok' = 'ok';
for (let attempt = 0; attempt < 500 && filled === 'ok'; attempt += 1) {
  const payload = { channel: 'eng', text: `build ${attempt} is green` };
  filled = await codeOf(async () => {
    const decision = await svc.authorize({ schemaVersion: 'svc.action.v0', actor: { agentId: 'agent:service' }, intent: { taskId: 'sdk-full' }, capability: { tool: 'chat.message.send', resource: 'channel:eng', payload } });
    if (decision.actionPass) passes.push({ token: decision.actionPass.token, payload });
  });
}
const [first, second] = passes;
if (!first || !second) throw new Error('fewer than two passes before the ledger filled up');
const ownPayload = await codeOf(() => svc.verify(first.token, first.payload));
const otherPayload = await codeOf(() => svc.verify(second.token, { ...second.payload, text: 'changed' }));
console.log(JSON.stringify({ passes: passes.length, filled, ownPayload, otherPayload }));
await svc.close().catch(() => undefined);
