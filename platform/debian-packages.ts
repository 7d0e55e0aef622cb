import { runToEnd } from './run-to-end.ts';

// Installs what is missing from Debian's packages: the one place that calls apt on the host. Each
// caller names only what it needs (infra/stack/install.ts the stack, sandbox-runtime/host.ts the
// sandbox runtime), and both run at `npm run stack -- start`, never inside a request.

export interface DebianPackage {
  readonly pkg: string;
  /** Whether it is installed already, usually by a program it brings. */
  present(): boolean;
}

export async function ensureDebianPackages(
  packages: readonly DebianPackage[],
  log: (line: string) => void,
): Promise<void> {
  const missing = packages.filter((entry) => !entry.present()).map((entry) => entry.pkg);
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new Error(
      `Missing packages: ${missing.join(' ')}. Install them with: sudo apt-get install ${missing.join(' ')}`,
    );
  }
  log(`installing from Debian's packages: ${missing.join(' ')}`);
  await aptGet(['update', '-q']);
  await aptGet(['install', '-y', '-q', '--no-install-recommends', ...missing]);
}

/** apt-get to its end, failing with the last of its output (an install prints a lot). */
async function aptGet(args: string[]): Promise<void> {
  await runToEnd('apt-get', args, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}
