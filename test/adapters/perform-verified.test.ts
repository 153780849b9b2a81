import { describe, expect, it } from 'vitest';
import { performVerified } from '../../src/adapters/perform-verified.js';
import { prepareCanonicalCall } from '../../src/adapters/prepared-call.js';
import { hashCanonical } from '../../src/events/canonical.js';
import { SvcError } from '../../src/errors.js';
import { recordingContext } from './support.js';

describe('performVerified', () => {
  it('verifies the prepared hash first, then hands exactly the prepared bytes to the side effect', async () => {
    const call = prepareCanonicalCall({ b: 1, a: 'x' });
    const steps: string[] = [];
    const context = recordingContext('act_1', () => steps.push('verify'));
    const result = await performVerified(context, call, async (bytes) => {
      steps.push(`send ${bytes.toString('utf8')}`);
      return { id: 'm1' };
    });
    expect(steps).toEqual(['verify', 'send {"a":"x","b":1}']);
    expect(context.verified).toEqual([call.executedPayloadHash]);
    expect(result).toEqual({ outcome: 'succeeded', executedPayloadHash: call.executedPayloadHash, result: { id: 'm1' }, resultHash: hashCanonical({ id: 'm1' }) });
  });

  it('never starts the side effect when verification throws', async () => {
    let sent = false;
    const context = recordingContext('act_1', () => {
      throw new SvcError('actionpass_replayed', 'used');
    });
    await expect(
      performVerified(context, prepareCanonicalCall({}), async () => {
        sent = true;
        return null;
      }),
    ).rejects.toMatchObject({ code: 'actionpass_replayed' });
    expect(sent).toBe(false);
  });

  it('turns a failure after verification into a failed outcome with a code and an errno, not a path', async () => {
    const call = prepareCanonicalCall({ a: 1 });
    const result = await performVerified(recordingContext(), call, async () => {
      throw Object.assign(new Error("ENOSPC: no space left on device, open '/home/ana/secret-project/x'"), { code: 'ENOSPC' });
    });
    expect(result).toEqual({
      outcome: 'failed',
      executedPayloadHash: call.executedPayloadHash,
      result: { error: 'adapter_write_failed' },
      resultHash: hashCanonical({ error: 'adapter_write_failed' }),
      error: { code: 'adapter_write_failed', message: 'the delivery could not be written (ENOSPC)' },
    });
  });
});

describe('prepareCanonicalCall', () => {
  it('refuses a payload without an RFC 8785 form with adapter_payload_not_canonical', () => {
    expect(() => prepareCanonicalCall({ text: 'a\ud800' })).toThrow(expect.objectContaining({ code: 'adapter_payload_not_canonical' }));
  });
});
