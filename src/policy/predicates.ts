import { MISSING } from './field-path.js';
import { compileGlob, type TextMatcher } from './glob.js';
import { PREDICATE_OPERATORS, type OperatorObject, type Predicate, type PredicateOperator, type PredicateScalar } from './policy-schema.js';
import { compileAnchoredRegex } from './safe-regex.js';
import { formatScalarList, formatOperand, formatValue } from './value-format.js';

/**
 * Predicates over one field of an action, in three-valued logic: a predicate `holds`, `fails`, or
 * is `undetermined` when the value cannot be judged. What that means is up to the rule
 * (compile-rule.ts): doubt keeps an allow rule from matching and makes a deny or step_up rule
 * match. Doubt arises two ways:
 *
 * - a value of the wrong kind: a list or object where a single value was expected, a number for
 *   `glob` or `regex`, text for `lt`; an agent must not dodge a rule by changing a field's type;
 * - a missing field under `not_in` or `not_glob`: "not on the allowlist" cannot be confirmed for
 *   a value that is not there. The positive operators simply fail on a missing field (there is
 *   nothing that equals, is in, or matches anything), and `exists` is never in doubt.
 */
export type Verdict = 'holds' | 'fails' | 'undetermined';

export interface CompiledPredicate {
  /** The predicate as the trace shows it after the field name: `not_in [eng, ops]`. */
  readonly label: string;
  /** `value` is the field's value, or MISSING. */
  test(value: unknown): Verdict;
  /** One clause of an explanation, for a value the predicate holds or is undetermined on. */
  describe(field: string, value: unknown): string;
}

/** What an operator compares; a value of another kind leaves it undetermined. */
type Operand = 'scalar' | 'string' | 'number' | 'anything';

interface CompiledOperator {
  label: string;
  accepts: Operand;
  /** The verdict on a missing field, for operators that compare a value. */
  whenMissing: Verdict;
  /** Called only with a value of the accepted kind. */
  holds(value: unknown): boolean;
  describeHolds(field: string, value: unknown): string;
}

export function compilePredicate(predicate: Predicate): CompiledPredicate {
  const operators = (Array.isArray(predicate) ? predicate : [predicate]).map(compileOperator);
  if (operators.length === 1) {
    const operator = operators[0] as CompiledOperator;
    return {
      label: operator.label,
      test: (value) => testOperator(operator, value),
      describe: (field, value) => describeOperator(operator, field, value),
    };
  }
  return {
    label: operators.map((operator) => operator.label).join(' and '),
    test(value) {
      // Kleene conjunction: one failure decides; otherwise any doubt leaves the whole in doubt.
      let verdict: Verdict = 'holds';
      for (const operator of operators) {
        const result = testOperator(operator, value);
        if (result === 'fails') return 'fails';
        if (result === 'undetermined') verdict = 'undetermined';
      }
      return verdict;
    },
    describe(field, value) {
      const undetermined = operators.find((operator) => testOperator(operator, value) === 'undetermined');
      if (undetermined) return describeOperator(undetermined, field, value);
      return operators.map((operator) => operator.describeHolds(field, value)).join(' and ');
    },
  };
}

function testOperator(operator: CompiledOperator, value: unknown): Verdict {
  if (operator.accepts !== 'anything' && !isKind(value, operator.accepts)) return value === MISSING ? operator.whenMissing : 'undetermined';
  return operator.holds(value) ? 'holds' : 'fails';
}

function describeOperator(operator: CompiledOperator, field: string, value: unknown): string {
  if (operator.accepts === 'anything' || isKind(value, operator.accepts)) return operator.describeHolds(field, value);
  if (value === MISSING) return `${field} is missing`;
  return `${field} is ${formatValue(value)}, not ${KIND_NAMES[operator.accepts]}`;
}

const KIND_NAMES: Record<Exclude<Operand, 'anything'>, string> = { scalar: 'a single value', string: 'a string', number: 'a number' };

function isKind(value: unknown, kind: Operand): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'scalar':
      return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
    case 'anything':
      return true;
  }
}

function operatorOf(object: OperatorObject): [PredicateOperator, unknown] {
  for (const operator of PREDICATE_OPERATORS) {
    if (object[operator] !== undefined) return [operator, object[operator]];
  }
  // The schema guarantees exactly one operator; a hand-built object without one must not pass.
  throw new TypeError('a predicate needs one operator');
}

const COMPARISONS = {
  lt: { words: 'is less than', holds: (value: number, bound: number) => value < bound },
  lte: { words: 'is at most', holds: (value: number, bound: number) => value <= bound },
  gt: { words: 'is more than', holds: (value: number, bound: number) => value > bound },
  gte: { words: 'is at least', holds: (value: number, bound: number) => value >= bound },
} as const;

function compileOperator(object: OperatorObject): CompiledOperator {
  const [operator, operand] = operatorOf(object);
  switch (operator) {
    case 'equals': {
      const expected = operand as PredicateScalar;
      return {
        label: `equals ${formatOperand(expected)}`,
        accepts: 'scalar',
        whenMissing: 'fails',
        holds: (value) => value === expected,
        describeHolds: (field) => `${field} is ${formatValue(expected)}`,
      };
    }
    case 'in':
    case 'not_in': {
      const list = operand as PredicateScalar[];
      const members = new Set<unknown>(list);
      const negated = operator === 'not_in';
      const shown = formatScalarList(list);
      return {
        label: `${operator} ${shown}`,
        accepts: 'scalar',
        whenMissing: negated ? 'undetermined' : 'fails',
        holds: (value) => members.has(value) !== negated,
        describeHolds: (field, value) => `${field} ${formatValue(value)} is ${negated ? 'not ' : ''}in ${shown}`,
      };
    }
    case 'glob':
    case 'not_glob': {
      const glob = operand as string;
      const matches: TextMatcher = compileGlob(glob);
      const negated = operator === 'not_glob';
      return {
        label: `${operator} ${formatOperand(glob)}`,
        accepts: 'string',
        whenMissing: negated ? 'undetermined' : 'fails',
        holds: (value) => matches(value as string) !== negated,
        describeHolds: (field, value) => `${field} ${formatValue(value)} ${negated ? 'does not match' : 'matches'} ${formatOperand(glob)}`,
      };
    }
    case 'regex': {
      const pattern = operand as string;
      const regex = compileAnchoredRegex(pattern);
      return {
        label: `regex ${JSON.stringify(pattern)}`,
        accepts: 'string',
        whenMissing: 'fails',
        holds: (value) => regex.test(value as string),
        describeHolds: (field, value) => `${field} ${formatValue(value)} matches the regex ${JSON.stringify(pattern)}`,
      };
    }
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte': {
      const bound = operand as number;
      const comparison = COMPARISONS[operator];
      return {
        label: `${operator} ${bound}`,
        accepts: 'number',
        whenMissing: 'fails',
        holds: (value) => comparison.holds(value as number, bound),
        describeHolds: (field, value) => `${field} ${formatValue(value)} ${comparison.words} ${bound}`,
      };
    }
    case 'exists': {
      const wanted = operand as boolean;
      return {
        label: `exists ${wanted}`,
        accepts: 'anything',
        whenMissing: wanted ? 'fails' : 'holds',
        holds: (value) => (value !== MISSING) === wanted,
        describeHolds: (field) => `${field} is ${wanted ? 'present' : 'absent'}`,
      };
    }
  }
}
