// The API's default address (spec 002's `{base_url}`), and where a sandbox's live screen is
// (Endpoints: `GET /sandboxes/:id/screen?token=`): the API's address with its scheme turned into
// WebSocket's, for `mountScreen` and `fromToken`.

export const defaultBaseUrl = 'http://127.0.0.1:8080';

/** The screen's address: the API's, with `ws` for `http` and `wss` for `https`. */
export function screenUrl(baseUrl: string, sandbox: string, token: string): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/api/sandboxes/${encodeURIComponent(sandbox)}/screen`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('token', token);
  return url.toString();
}
