// The desktop the examples drive: a real sandbox's when ORRERY_API_KEY and ORRERY_SANDBOX are set
// (ORRERY_BASE_URL optional), else a recording one that serves blank screenshots and remembers calls.

import type { DesktopActions } from '../src/desktop-types.ts';
import { RecordingDesktop } from '../test/support/recording-desktop.js';

/** The client entry point (`@orrery/sandbox` in your project), loaded only for a real desktop. */
const CLIENT_ENTRY = '../src/index.js';

interface ClientModule {
  Client: new (options: {
    apiKey: string;
    baseUrl?: string;
  }) => { sandboxes: { get(idOrName: string): Promise<{ desktop: DesktopActions }> } };
}

export async function exampleDesktop(env: NodeJS.ProcessEnv = process.env): Promise<DesktopActions> {
  const { ORRERY_API_KEY: apiKey, ORRERY_SANDBOX: sandbox, ORRERY_BASE_URL: baseUrl } = env;
  if (!apiKey || !sandbox) return new RecordingDesktop();
  const { Client } = (await import(CLIENT_ENTRY)) as ClientModule;
  const client = new Client({ apiKey, ...(baseUrl ? { baseUrl } : {}) });
  return (await client.sandboxes.get(sandbox)).desktop;
}
