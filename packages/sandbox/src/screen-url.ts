// Where the live screen of a sandbox is (spec 002, Endpoints: `GET /sandboxes/:id/screen?token=`):
// the API's address with its scheme turned into WebSocket's, for `mountScreen` and `fromToken`.

export const defaultBaseUrl = 'http://127.0.0.1:8080';

export function screenUrl(baseUrl: string, sandbox: string, token: string): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/api/sandboxes/${encodeURIComponent(sandbox)}/screen`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('token', token);
  return url.toString();
}
