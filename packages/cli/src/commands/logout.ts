import type { Context } from '../context.ts';
import type { StoredLogin } from '../credentials.ts';

// `orrery logout`: forgets the stored key (exit 0 whether there was one or not). The key itself
// stays valid until it is revoked on the dashboard: the API has no route for a key to revoke
// itself.

export async function logout(context: Context): Promise<void> {
  const { output, store, env } = context;
  let stored: StoredLogin | undefined;
  try {
    stored = await store.read();
  } catch {
    // A file this tool cannot read is forgotten all the same.
  }
  if (await store.forget())
    output.say(
      stored
        ? `Logged out of ${stored.api_url}: forgot the key ${stored.key_id} stored in ${store.file}. ` +
            'It stays valid until revoked under Settings on the dashboard.'
        : `Logged out: removed ${store.file}.`,
    );
  else output.say('Not logged in: no key stored, nothing to forget.');
  if (env.ORRERY_API_KEY) output.say('ORRERY_API_KEY is still set, and the tool still uses it.');
}
