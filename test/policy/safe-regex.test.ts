import { describe, expect, it } from 'vitest';
import { compileAnchoredRegex, regexProblem } from '../../src/policy/safe-regex.js';

describe('regex predicates', () => {
  it('are anchored: the pattern must match the whole value', () => {
    const regex = compileAnchoredRegex('select .*');
    expect(regex.test('select 1')).toBe(true);
    expect(regex.test('with x as (select 1) delete from t')).toBe(false);
    expect(compileAnchoredRegex('eng|ops').test('engineering')).toBe(false);
    expect(compileAnchoredRegex('.*drop table.*').test('select 1;\ndrop table users')).toBe(true);
  });

  it('take a leading (?i) for case-insensitive matching, and no other inline flag', () => {
    expect(compileAnchoredRegex('(?i)select .*').test('SELECT 1')).toBe(true);
    expect(compileAnchoredRegex('select .*').test('SELECT 1')).toBe(false);
    expect(regexProblem('(?m)^a$')).toMatch(/not a valid regular expression/);
  });

  it.each([
    ['(a+)+', /nested quantifier/],
    ['(a*)*b', /nested quantifier/],
    ['(\\w+\\s?)*$', /nested quantifier/],
    ['((ab)*){2,}', /nested quantifier/],
    ['(?:x+y?)+', /nested quantifier/],
    ['(?<word>a+)*', /nested quantifier/],
    ['(.*,)*', /nested quantifier/],
    ['(a)\\1', /backreferences/],
    ['(?<q>a)\\k<q>', /backreferences/],
    ['[', /not a valid regular expression: Unterminated character class/],
    ['a{2,1}', /not a valid regular expression/],
    ['\\-', /not a valid regular expression/],
  ])('refuse %s', (pattern, message) => {
    expect(regexProblem(pattern)).toMatch(message);
    expect(() => compileAnchoredRegex(pattern)).toThrow(message);
  });

  it.each(['select\\b.*', '(a|b)+', '(ab)+c', '[a-z]+(-[a-z]+){0,1}', '(\\p{L}){1,2}', '\\u{1F600}+', '(?:a{1})+', '[(+*)]+', '(?i)(insert|update|delete)\\s.*'])('accept %s', (pattern) => {
    expect(regexProblem(pattern)).toBeUndefined();
  });
});
