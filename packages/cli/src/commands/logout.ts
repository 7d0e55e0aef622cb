import { ApiClient } from '../api-client.ts';
import type { Context } from '../context.ts';
import type { StoredLogin } from '../credentials.ts';
import { Failure } from '../failures.ts';

// `orrery logout`: revokes the stored key at the API it was made against (RFC 7009, `POST
// /api/auth/revoke`: a key revokes itself) and forgets it. Exit 0 whether there was one or not;
// a key the API could not revoke is forgotten all the same and reported with exit 1 (the API
// refused), since it stays valid until revoked under Settings.

export async function logout(context: Context): Promise<void> {
  const { output, store, env } = context;
  let stored: StoredLogin | undefined;
  try {
    stored = await store.read();
  } catch {
    // A file this tool cannot read is forgotten all the same.
  }
  const revoked = stored ? await revoke(context, stored) : undefined;
  if (await store.forget())
    output.say(
      stored
        ? `Logged out of ${stored.api_url}: ${revoked === true ? 'revoked and ' : ''}forgot the key ${stored.key_id}.`
        : `Logged out: removed ${store.file}.`,
    );
  else output.say('Not logged in: no key stored, nothing to forget.');
  if (env.ORRERY_API_KEY) output.say('ORRERY_API_KEY is still set, and the tool still uses it.');
  if (revoked instanceof Failure)
    throw new Failure(
      `The key ${stored?.key_id} could not be revoked (${revoked.message}); it stays valid until revoked under Settings on the dashboard.`,
    );
}

async function revoke(context: Context, stored: StoredLogin): Promise<true | Failure> {
  const api = new ApiClient({ baseUrl: stored.api_url, userAgent: context.userAgent });
  try {
    await api.post('/api/auth/revoke', { form: { token: stored.key, token_type_hint: 'access_token' } });
    return true;
  } catch (error) {
    if (error instanceof Failure) return error;
    throw error;
  }
}
