/**
 * Dotted paths into an action (`channel`, `message.to.0`): each segment names an own property of
 * an object, or, when it is a whole number, an element of an array. Resolving never reads
 * inherited properties, so a payload cannot satisfy a condition through its prototype.
 */

/** What a path resolves to when some segment is not there. */
export const MISSING: unique symbol = Symbol('missing');

/** Returns the value at the path, or MISSING. */
export type FieldResolver = (root: unknown) => unknown;

const ARRAY_INDEX = /^(0|[1-9][0-9]{0,8})$/;

export function compileFieldPath(path: string): FieldResolver {
  const segments = path.split('.');
  const indexes = segments.map((segment) => (ARRAY_INDEX.test(segment) ? Number(segment) : -1));
  if (segments.length === 1) {
    const [key] = segments as [string];
    const index = indexes[0] as number;
    return (root) => step(root, key, index);
  }
  return (root) => {
    let current = root;
    for (let depth = 0; depth < segments.length; depth += 1) {
      current = step(current, segments[depth] as string, indexes[depth] as number);
      if (current === MISSING) return MISSING;
    }
    return current;
  };
}

function step(value: unknown, key: string, index: number): unknown {
  if (typeof value !== 'object' || value === null) return MISSING;
  if (Array.isArray(value)) return index >= 0 && index < value.length ? (value[index] as unknown) : MISSING;
  return Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : MISSING;
}
