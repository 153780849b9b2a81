/** The name of a `<kind>:<name>` resource when it is of `kind`, otherwise undefined. */
export function resourceName(resource: string, kind: string): string | undefined {
  const prefix = `${kind}:`;
  return resource.startsWith(prefix) ? resource.slice(prefix.length) : undefined;
}
