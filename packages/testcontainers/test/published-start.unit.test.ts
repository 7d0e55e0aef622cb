import type { GenericContainer, StartedTestContainer } from 'testcontainers';
import { describe, expect, it } from 'vitest';
import { startPublishing } from '../src/published-start.js';

// The engine's side is faked: which start fails, and with what, is the point here; that podman
// publishes and removes for real is the containers suite's (test/int/containers, test/e2e).

const started = { started: true } as unknown as StartedTestContainer;
const lostPort = new Error(
  '(HTTP code 500) server error - cannot listen on the TCP port: listen tcp4 :32847: bind: address already in use',
);

/** A container whose starts fail with `failures` in order, then succeed; it records each try's label. */
function containerFailing(...failures: Error[]) {
  const attempts: string[] = [];
  let label = '';
  const container = {
    withLabels(labels: Record<string, string>) {
      label = labels['org.orrery.testcontainers.attempt'] ?? '';
      return container;
    },
    async start() {
      attempts.push(label);
      const failure = failures.shift();
      if (failure) throw failure;
      return started;
    },
  };
  return { container: container as unknown as GenericContainer, attempts };
}

describe('a container that publishes a port', () => {
  it('is started again, with a new try, when the engine lost its host port; the lost try is removed', async () => {
    const { container, attempts } = containerFailing(
      lostPort,
      new Error('Bind for 0.0.0.0:5 failed: port is already allocated'),
    );
    const removed: string[] = [];
    const result = await startPublishing(container, async (_, attempt) => {
      removed.push(attempt);
    });
    expect(result).toBe(started);
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts).size).toBe(3);
    expect(removed).toEqual(attempts.slice(0, 2));
  });

  it('gives up after three tries, with the engine’s error', async () => {
    const { container, attempts } = containerFailing(lostPort, lostPort, lostPort, lostPort);
    await expect(startPublishing(container, async () => undefined)).rejects.toBe(lostPort);
    expect(attempts).toHaveLength(3);
  });

  it('is not started again for any other failure', async () => {
    const timedOut = new Error(
      'Timed out after 120000ms while waiting for container ports to be bound to the host',
    );
    const { container, attempts } = containerFailing(timedOut);
    await expect(startPublishing(container, async () => undefined)).rejects.toBe(timedOut);
    expect(attempts).toHaveLength(1);
  });
});
