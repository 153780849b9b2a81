import * as z from 'zod';

/**
 * Building blocks of the svc.yml schema whose every message says what to write, with an example,
 * the way the policy section does (src/policy/policy-schema.ts). Messages never repeat the value
 * that was refused: svc.yml is where a credential gets pasted by mistake, and the message ends up
 * in terminals and CI logs.
 */

/** An integer field: `expected a whole number of <unit> from <min> to <max>, for example <example>`. */
export function wholeNumber(unit: string, min: number, max: number, example: number) {
  const message = `expected a whole number${unit ? ` of ${unit}` : ''} from ${min} to ${max}, for example ${example}`;
  return z
    .number({
      // "8080" in quotes is the likeliest mistake, and the one the bare message would not explain.
      error: (issue) => (typeof issue.input === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(issue.input) ? `${message}; write the number without quotes` : message),
    })
    .int(message)
    .min(min, message)
    .max(max, message);
}

/** A path in svc.yml, relative to the file itself. */
export function pathField(example: string) {
  const message = `expected a path (relative to svc.yml), for example ${example}`;
  return z.string({ error: message }).min(1, message).max(4096, `${message}; at most 4096 characters`);
}

/** A short free-form name such as an issuer or an audience. */
export function nameField(example: string) {
  const message = `expected a name of 1 to 200 characters, for example ${example}`;
  return z.string({ error: message }).min(1, message).max(200, message);
}

/** One of a few words. */
export function choice<const Values extends readonly [string, ...string[]]>(values: Values) {
  const listed = values.length === 2 ? `${values[0]} or ${values[1]}` : `one of ${values.join(', ')}`;
  return z.enum(values, { error: `expected ${listed}` });
}

/**
 * A section of svc.yml (a strict map). Only "not a map" gets its own message here, with an example
 * of the section; an unknown key inside it is reported by the loader, which points at the key.
 */
export function section<Shape extends z.core.$ZodLooseShape>(example: string, shape: Shape) {
  return z.strictObject(shape, { error: (issue) => (issue.code === 'invalid_type' ? `expected a map of keys, for example ${example}` : undefined) });
}

/**
 * A section svc.yml may leave out, built on first use: when it is absent, as most are, it takes
 * `defaults()` and its schema is never built. A hook process reads svc.yml once and exits, and
 * building the schemas of the sections it leaves out was about a quarter of the zod schemas it
 * built (each 20-25 µs). `defaults()` must be what the schema makes of `{}`; a test holds them equal.
 */
export function optionalSection<Schema extends z.ZodType>(spec: { build: () => Schema; defaults: () => z.output<Schema> }) {
  return z.lazy(spec.build).default(spec.defaults as () => z.util.NoUndefined<z.output<Schema>>);
}

/** Marks an issue about a map key itself, which the loader then points at rather than at the key's value. */
export const ABOUT_THE_KEY = { about: 'key' } as const;

export function isAboutTheKey(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'custom' && issue.params?.['about'] === ABOUT_THE_KEY.about;
}

/**
 * A map from names the user chooses to `value`. Names are checked by us rather than by the
 * record's key schema, which zod reports only as "Invalid key in record", and checked even when a
 * value is wrong too (`when`), so one run reports both.
 */
export function namedRecord<Value extends z.ZodType>(pattern: RegExp, nameMessage: string, value: Value, example: string) {
  return z
    .record(z.string(), value, { error: (issue) => (issue.code === 'invalid_type' ? `expected a map from names to settings, for example ${example}` : undefined) })
    .superRefine(
      (entries, context) => {
        for (const name of Object.keys(entries)) if (!pattern.test(name)) context.addIssue({ code: 'custom', path: [name], message: nameMessage, params: ABOUT_THE_KEY });
      },
      { when: (payload) => typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value) },
    );
}
