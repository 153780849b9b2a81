/** The one error body of the proxy (DESIGN.md section 7). */
export interface ErrorBody {
  error: { code: string; message: string; issues?: { path: string; message: string }[] };
}

export function errorBody(code: string, message: string, issues?: { path: string; message: string }[]): ErrorBody {
  return { error: { code, message, ...(issues && { issues }) } };
}
