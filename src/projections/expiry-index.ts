/**
 * The keys of a map whose entries are forgotten some time after they expire, filed by the minute
 * of their expiry, so a sweep looks only at the minutes old enough to hold something to forget
 * instead of walking every entry kept. A busy proxy keeps every pass of the last hour (millions
 * of them); passes expire in no particular order (one used later may expire sooner, a clock may
 * step back), which a queue in insertion order cannot follow.
 *
 * The index may hold keys its map no longer has, or has with another expiry (a pass issued
 * again, an entry deleted for another reason): a sweep asks for each key's current expiry and
 * drops the keys filed under another minute, so nothing is forgotten early or kept for good.
 */
export class ExpiryIndex<K> {
  readonly #byMinute = new Map<number, K[]>();

  /** Files `key` under the minute of `expSeconds`. An expiry that is not a number is never past. */
  add(key: K, expSeconds: number): void {
    const minute = Math.floor(expSeconds / 60);
    const keys = this.#byMinute.get(minute);
    if (keys === undefined) this.#byMinute.set(minute, [key]);
    else keys.push(key);
  }

  /**
   * Forgets every key whose current expiry (`expiryOf`: undefined once the map no longer holds
   * the key) `isPast` says is past: exactly the keys a walk over the whole map would forget.
   * `isPast` must hold for every expiry earlier than one it holds for.
   */
  sweep(isPast: (expSeconds: number) => boolean, expiryOf: (key: K) => number | undefined, forget: (key: K) => void): void {
    for (const [minute, keys] of this.#byMinute) {
      // Nothing filed under a minute whose start is not past is past (NaN compares false).
      if (!isPast(minute * 60)) continue;
      const kept: K[] = [];
      for (const key of keys) {
        const exp = expiryOf(key);
        if (exp === undefined || Math.floor(exp / 60) !== minute) continue;
        if (isPast(exp)) forget(key);
        else kept.push(key);
      }
      if (kept.length === 0) this.#byMinute.delete(minute);
      else this.#byMinute.set(minute, kept);
    }
  }
}
