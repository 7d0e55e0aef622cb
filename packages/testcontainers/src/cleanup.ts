import { getContainerRuntimeClient } from 'testcontainers';

// Every container of one `start()` carries this label with the run's id, so a start that fails
// half-way removes what it made: running or exited (a provisioning that failed), the containers
// whose own start failed included (testcontainers hands no container back then, and on podman
// there is no Ryuk to reap it).
export const runLabel = 'org.orrery.testcontainers.run';

export function removeRun(runId: string): Promise<void> {
  return removeLabelled(runLabel, runId);
}

/** Removes every container, running or not, whose `label` is `value`. */
export async function removeLabelled(label: string, value: string): Promise<void> {
  const { dockerode } = (await getContainerRuntimeClient()).container;
  const leftovers = await dockerode.listContainers({
    all: true,
    filters: { label: [`${label}=${value}`] },
  });
  await Promise.allSettled(
    leftovers.map((info) => dockerode.getContainer(info.Id).remove({ force: true, v: true })),
  );
}
