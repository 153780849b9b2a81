import { randomFillSync } from 'node:crypto';

/**
 * The ids of actions, passes and approvals: a prefix, `_`, and 12 bytes from the secure generator
 * in base64url (16 characters). They come in pooled draws, encoded once per draw: one
 * `randomBytes` call, or one `toString` call, per id costs more than the rest of building it,
 * three times per request. 12 bytes are a whole number of base64 groups (3 bytes, 4 characters),
 * so an id's 16 characters in the encoded draw are exactly its own bytes' encoding.
 */
export const ID_BYTES = 12;
const ID_CHARS = 16;
export const IDS_PER_DRAW = 341;

let draw = '';
let idsLeft = 0;

export function newId(prefix: string): string {
  if (idsLeft === 0) {
    draw = randomFillSync(Buffer.allocUnsafe(IDS_PER_DRAW * ID_BYTES)).toString('base64url');
    idsLeft = IDS_PER_DRAW;
  }
  const at = (IDS_PER_DRAW - idsLeft) * ID_CHARS;
  idsLeft -= 1;
  return `${prefix}_${draw.slice(at, at + ID_CHARS)}`;
}
