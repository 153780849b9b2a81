import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.js';
import { optionalSections } from '../../src/config/schema.js';

/**
 * The svc.yml sections built on first use (field-schemas.ts optionalSection): an absent one takes
 * its stated defaults without its schema being built, so those defaults must be exactly what the
 * schema makes of an empty section.
 */
describe('optional svc.yml sections', () => {
  for (const [name, spec] of Object.entries(optionalSections)) {
    it(`${name}: the defaults are what the schema makes of {}, keys in the same order`, () => {
      expect(spec.defaults()).toEqual(spec.build().parse({}));
      expect(JSON.stringify(spec.defaults())).toBe(JSON.stringify(spec.build().parse({})));
    });
  }

  it('an absent section parses to its defaults, a fresh object each time', () => {
    const first = parseConfig('tenant: org:acme\n', 'svc.yml');
    const second = parseConfig('tenant: org:acme\n', 'svc.yml');
    for (const [name, spec] of Object.entries(optionalSections)) {
      const section = name as keyof typeof optionalSections;
      expect(first[section], name).toEqual(spec.defaults());
      expect(first[section], name).not.toBe(second[section]);
    }
    expect(first.ledger.checkpoint).not.toBe(second.ledger.checkpoint);
  });

  it('a section that is there is parsed by its schema, defaults filled in and mistakes refused', () => {
    const config = parseConfig('tenant: org:acme\nproxy:\n  port: 8080\nledger:\n  checkpoint:\n    everyRecords: 10\n', 'svc.yml');
    expect(config.proxy).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(config.ledger).toEqual({ path: '.svc/ledger.jsonl', checkpoint: { everyRecords: 10, everyMs: 1000 } });
    expect(() => parseConfig('tenant: org:acme\nmcp:\n  servers:\n    github: {}\n', 'svc.yml')).toThrow(/either command \(stdio\) or url/);
    expect(() => parseConfig('tenant: org:acme\napprovals:\n  ttlSeconds: "600"\n', 'svc.yml')).toThrow(/write the number without quotes/);
  });
});
