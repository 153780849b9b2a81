import { z } from 'zod';

/**
 * The `svc.yml` schema. Unknown keys are rejected so a typo never silently falls back to a
 * default. Sections for policy, connectors and the proxy join this schema with the enforcement
 * spine; until then a config names the tenant and where the ledger lives.
 */
export const svcConfigSchema = z.strictObject({
  tenant: z.string().regex(/^org:[a-z0-9][a-z0-9._-]{0,62}$/, 'expected org:<name> in lowercase letters, digits, ".", "_" or "-"'),
  ledger: z
    .strictObject({
      path: z.string().min(1).default('.svc/ledger.jsonl'),
      checkpoint: z
        .strictObject({
          everyRecords: z.number().int().min(1).max(1_000_000).default(1000),
          everyMs: z.number().int().min(10).max(3_600_000).default(1000),
        })
        .prefault({}),
    })
    .prefault({}),
});

export type SvcConfig = z.infer<typeof svcConfigSchema>;
