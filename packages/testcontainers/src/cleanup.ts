import { getContainerRuntimeClient } from 'testcontainers';

// Every container of one `start()` carries this label with the run's id, so a start that fails
// half-way removes what it made, the containers whose own start failed included (testcontainers
// hands no container back then, and on podman there is no Ryuk to reap it).
export const runLabel = 'org.orrery.testcontainers.run';

export async function removeRun(runId: string): Promise<void> {
  const client = await getContainerRuntimeClient();
  const leftovers = (await client.container.list()).filter((info) => info.Labels?.[runLabel] === runId);
  await Promise.allSettled(
    leftovers.map(async (info) => {
      const container = client.container.getById(info.Id);
      await client.container.stop(container, { timeout: 5 });
      await client.container.remove(container, { removeVolumes: true });
    }),
  );
}
