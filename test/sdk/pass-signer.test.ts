import { describe, expect, it } from 'vitest';
import { issueActionPass, type ActionPassClaims } from '../../src/actionpass/actionpass-token.js';
import { generateSigningKey } from '../../src/actionpass/keys.js';
import { canonicalJson } from '../../src/events/canonical.js';

/**
 * The worker-thread signer as the proxy runs it: the compiled module (npm test builds first), so
 * the worker script is really there. Ed25519 is deterministic, so every token must be exactly
 * the one the in-thread signer makes.
 */
const { workerPassSigner } = (await import(new URL('../../dist/src/actionpass/pass-signer.js', import.meta.url).href)) as typeof import('../../src/actionpass/pass-signer.js');

const claimsFor = (index: number): ActionPassClaims => ({
  iss: 'svc.local',
  sub: 'agent:test',
  aud: 'svc.adapters',
  iat: 1_795_000_000,
  nbf: 1_795_000_000,
  exp: 1_795_000_300,
  jti: `pass_${index}`,
  tenant: 'org:acme',
  tool: 'chat.message.send',
  resource: 'channel:eng',
  actionId: `act_${index}`,
  actionHash: `sha256:${'a'.repeat(64)}`,
  payloadHash: `sha256:${'b'.repeat(64)}`,
  policyHash: `sha256:${'c'.repeat(64)}`,
  decisionSeq: index,
});

describe('worker pass signer', () => {
  it('signs concurrent requests on its thread, each token byte for byte the in-thread one', async () => {
    const key = generateSigningKey('svc.local/org:acme/pass-worker-test');
    const signer = await workerPassSigner(key);
    try {
      const claims = Array.from({ length: 200 }, (_, index) => claimsFor(index));
      const tokens = await Promise.all(claims.map((one) => signer.sign(canonicalJson(one))));
      expect(tokens).toEqual(claims.map((one) => issueActionPass(key, one)));
    } finally {
      await signer.close();
    }
  });

  it('refuses claims it would not verify, and fails every later request once closed', async () => {
    const signer = await workerPassSigner(generateSigningKey('svc.local/org:acme/pass-worker-test2'));
    await expect(signer.sign(canonicalJson({ ...claimsFor(1), payloadHash: 'not a hash' }))).rejects.toMatchObject({ code: 'signer_unavailable' });
    await signer.close();
    await expect(signer.sign(canonicalJson(claimsFor(2)))).rejects.toMatchObject({ code: 'signer_unavailable' });
  });
});
