/**
 * The one error class of svc. `code` is a stable snake_case identifier that callers, the CLI
 * and the proxy's error body (`{ error: { code, message } }`) rely on; `message` is for people.
 */
export class SvcError extends Error {
  override name = 'SvcError';
  readonly code: string;

  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
