/**
 * The OTLP time of a record's `ts`: nanoseconds since the epoch as a quoted decimal string, the
 * JSON text of `timeUnixNano`. It remembers the last `ts` it was asked for: the records sealed in
 * one millisecond share their `ts` (the writer hands out one string per millisecond), and
 * Date.parse and the number's text cost far more than finding the answer already known.
 */
export class UnixNanosText {
  private lastTs: string | undefined;
  private lastText = '';

  of(ts: string): string {
    if (ts !== this.lastTs) {
      this.lastTs = ts;
      this.lastText = `"${Date.parse(ts)}000000"`;
    }
    return this.lastText;
  }
}
