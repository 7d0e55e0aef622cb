import { provision } from '../../../infra/provision.ts';
import { startStack } from '../../../infra/stack/index.ts';
import { parseConfig } from '../../../platform/config.ts';
import { defaultRootfsCache, ensureRootfs } from '../../../sandbox-runtime/rootfs.ts';
import type { StackProvider } from './provider.ts';

/** The local processes of infra/ (no Docker): started, or reused when already healthy. */
export const localProvider: StackProvider = {
  name: 'local',
  async start(log) {
    const config = parseConfig();
    const outcomes = await startStack(config, log);
    log(
      `stack: ${Object.entries(outcomes)
        .map(([name, outcome]) => `${name} ${outcome}`)
        .join(', ')}`,
    );
    await provision(config, log);
    await ensureRootfs(defaultRootfsCache(), log);
    return { environment: {}, stop: async () => undefined };
  },
};
