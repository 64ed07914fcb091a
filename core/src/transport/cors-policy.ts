/**
 * The `Access-Control-Allow-Origin` value for a request's origin under `cors_origins`: `*` when
 * any origin is allowed, the origin itself when listed, '' (no header) otherwise.
 */
export function allowedOrigin(allowed: readonly string[], origin: string): string {
  if (allowed.includes('*')) return '*';
  return allowed.includes(origin) ? origin : '';
}
