import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { ensureDebianPackages } from '../../platform/debian-packages.ts';

// Real Chromium for tests that run a page: Debian's `chromium` (a test tool's own browser
// download needs the internet), installed by the first test that needs it, as the stack installs
// its parts.

const executablePath = '/usr/bin/chromium';

export async function launchChromium(log: (line: string) => void = () => {}): Promise<Browser> {
  await ensureDebianPackages([{ pkg: 'chromium', present: () => existsSync(executablePath) }], log);
  // Root cannot use Chromium's own sandbox; the pages are ours.
  return chromium.launch({ executablePath, args: ['--no-sandbox'] });
}
