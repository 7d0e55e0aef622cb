import { resolveAccess } from '../access.ts';
import { ApiClient } from '../api-client.ts';
import type { Context } from '../context.ts';
import { type DeviceCode, deviceLogin } from '../device-login.ts';
import type { Output } from '../output.ts';
import { describeMe } from './whoami.ts';

// `orrery login`: the device login (device-login.ts), then the key stored for this API. The key is
// never printed: `--json` gives the org and the key's id.

function show(output: Output, code: DeviceCode): void {
  const { strong, muted } = output.palette;
  const page = code.verification_uri_complete ?? code.verification_uri;
  const minutes = Math.round(code.expires_in / 60);
  output.say('To log in, open this page and approve the code:');
  output.say('');
  output.say(`  ${page}`);
  output.say('');
  output.say(
    `Code: ${strong(code.user_code)} ${muted(`(it must match the page's; it expires in ${minutes} minutes)`)}`,
  );
  output.say('Waiting for approval…');
}

export async function login(context: Context, options: { json?: boolean }): Promise<void> {
  const { output, store, env } = context;
  const { apiUrl, stored: before } = await resolveAccess(context);
  const api = new ApiClient({ baseUrl: apiUrl, userAgent: context.userAgent });
  const token = await deviceLogin({ api, sleep: context.sleep, show: (code) => show(output, code) });
  await store.save({
    api_url: apiUrl,
    org_id: token.org_id,
    key_id: token.key_id,
    key: token.access_token,
    saved_at: new Date().toISOString(),
  });
  // Who it is, for the person to check; the login stands even if this cannot be read now.
  const me = await new ApiClient({ baseUrl: apiUrl, key: token.access_token, userAgent: context.userAgent })
    .get('/api/me')
    .then((answer) => describeMe(answer.body, output.palette))
    .catch(() => `org ${token.org_id}, key ${token.key_id}`);
  output.say(`Logged in to ${apiUrl}: ${me}.`);
  output.say(output.palette.muted(`The key is stored in ${store.file}.`));
  if (before)
    output.say(
      `This replaces the login of ${before.api_url} (key ${before.key_id}), whose key stays valid until revoked under Settings.`,
    );
  if (env.ORRERY_API_KEY)
    output.say('ORRERY_API_KEY is set: the tool uses it instead of this login until it is unset.');
  if (options.json) output.json({ org_id: token.org_id, key_id: token.key_id });
}
