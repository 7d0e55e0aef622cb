// The errors a socket reports when the server at its other end cannot be reached: refused, reset,
// timed out, no route, or a name that does not resolve (yet). Read by every store's client that
// tells "away, ask again later" from "the query was wrong".

const unreachableSocketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** Whether `code` (an error's `code`) is a socket's word for a server it cannot reach. */
export function isUnreachableSocketCode(code: unknown): boolean {
  return typeof code === 'string' && unreachableSocketCodes.has(code);
}
