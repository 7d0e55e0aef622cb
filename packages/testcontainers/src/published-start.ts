import { randomUUID } from 'node:crypto';
import type { GenericContainer, StartedTestContainer } from 'testcontainers';
import { removeLabelled } from './cleanup.js';

// A container that publishes a port is started again when the engine lost the host port it had
// picked for it. Podman picks one by binding port 0 and letting it go when the container is made,
// and binds it again when the container starts; a connection made in between (the files are
// copied in meanwhile) can take it as its own local port, and the start fails with "address
// already in use" (Docker says "port is already allocated"). Each try is given a new port, unless
// the caller fixed it (Kafka's, when asked for one): then the tries find it still taken. The
// container of a failed try is removed, so the network can be removed once the run stops.

const attemptLabel = 'org.orrery.testcontainers.attempt';
const triesAtMost = 3;

const lostItsPort = (error: unknown) =>
  /address already in use|port is already allocated/.test(
    error instanceof Error ? error.message : String(error),
  );

/** Starts `container`, again with a new host port (at most three tries) if the engine lost its port. */
export async function startPublishing(
  container: GenericContainer,
  removeAttempt: (label: string, attempt: string) => Promise<void> = removeLabelled,
): Promise<StartedTestContainer> {
  for (let tried = 1; ; tried += 1) {
    const attempt = randomUUID();
    try {
      return await container.withLabels({ [attemptLabel]: attempt }).start();
    } catch (error) {
      if (tried >= triesAtMost || !lostItsPort(error)) throw error;
      await removeAttempt(attemptLabel, attempt);
    }
  }
}
