// The desktop the examples drive: a real sandbox's when ORRERY_API_KEY and ORRERY_SANDBOX are set
// (ORRERY_BASE_URL optional), else a recording one that serves blank screenshots and remembers calls.

import type { DesktopActions } from '../src/desktop-types.js';
import { Client } from '../src/index.js'; // in your project: '@orrery/sandbox'
import { RecordingDesktop } from '../test/support/recording-desktop.js';

export async function exampleDesktop(env: NodeJS.ProcessEnv = process.env): Promise<DesktopActions> {
  const { ORRERY_API_KEY: apiKey, ORRERY_SANDBOX: sandbox, ORRERY_BASE_URL: baseUrl } = env;
  if (!apiKey || !sandbox) return new RecordingDesktop();
  const client = new Client({ apiKey, ...(baseUrl ? { baseUrl } : {}) });
  return (await client.sandboxes.get(sandbox)).desktop;
}
