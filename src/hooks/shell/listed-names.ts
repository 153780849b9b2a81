/**
 * Whether a directory's listing rules a name out: a name not listed may still be there for a
 * lookup by name. Case-insensitive filesystems (APFS and HFS+ as macOS sets them up, NTFS, vfat,
 * ext4 directories with casefold) find `XAA` when asked for `xaa`, APFS also ignores Unicode
 * normalization (the Kelvin sign is a `K` to it), and vfat answers to short aliases (`LONGNA~1`).
 * Every such filesystem folds ASCII letters alike and nothing else onto ASCII, so when every
 * listed name is ASCII, an ASCII name without `~` that equals none of them ignoring ASCII case is
 * not there. Anything else is left to a lookup of its own.
 */
export function listedNameTest(listing: readonly string[]): (name: string) => 'absent' | 'ask' {
  const folded = new Set<string>();
  for (const listed of listing) {
    if (!ASCII.test(listed)) return () => 'ask';
    folded.add(listed.toLowerCase());
  }
  return (name) => (ASCII.test(name) && !name.includes('~') && !folded.has(name.toLowerCase()) ? 'absent' : 'ask');
}

const ASCII = /^[\x00-\x7f]*$/;
