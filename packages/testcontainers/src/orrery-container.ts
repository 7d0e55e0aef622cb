import { randomUUID } from 'node:crypto';
import { GenericContainer, Network, type StartedNetwork, Wait } from 'testcontainers';
import { removeRun, runLabel } from './cleanup.js';
import { startPublishing } from './published-start.js';
import { allScopes, type Scope } from './scopes.js';
import { defaultImages, type StackImages, stackEnvironment, startStack } from './stack.js';
import { StartedOrrery } from './started-orrery.js';

// `new OrreryContainer().start()`: Orrery and its stack on one network of their own, as a
// testcontainers module does it (builder methods, then `start()`, then `stop()` on what it
// answers). The API's port is published; the stack's are not, since only Orrery talks to them.

const apiPort = 8080;

export class OrreryContainer {
  private images: Partial<StackImages> = {};
  private readonly environment: Record<string, string> = {};
  private readonly keys: Record<string, readonly Scope[]> = {};
  private orgName = 'Test Org';
  private creditCents = 0;
  private tracing = true;

  /**
   * Images in place of the default set (`officialImages` or `localImages`, or any image that
   * reads the same configuration). By default: the local part images when the engine has them,
   * else the official ones.
   */
  withImages(images: Partial<StackImages>): this {
    this.images = { ...this.images, ...images };
    return this;
  }

  /** ORRERY_* settings for the platform's processes (ORRERY_MODELS, say). */
  withEnvironment(environment: Record<string, string>): this {
    Object.assign(this.environment, environment);
    return this;
  }

  /** A key with these scopes, answered by `start()` under this name. */
  withApiKey(name: string, scopes: readonly Scope[]): this {
    if (scopes.length === 0) throw new RangeError(`key "${name}" needs at least one scope`);
    for (const scope of scopes)
      if (!allScopes.includes(scope))
        throw new RangeError(`unknown scope "${scope}"; use ${allScopes.join(', ')}`);
    this.keys[name] = [...scopes];
    return this;
  }

  withOrgName(name: string): this {
    this.orgName = name;
    return this;
  }

  /** Credit the org starts with, in cents (titles and previews are charged against it). */
  withCredit(cents: number): this {
    if (!Number.isSafeInteger(cents) || cents < 0)
      throw new RangeError('credit is a whole number of cents ≥ 0');
    this.creditCents = cents;
    return this;
  }

  /** Leaves tracing off for the org, as for an org that has not joined the beta. */
  withoutTracing(): this {
    this.tracing = false;
    return this;
  }

  async start(): Promise<StartedOrrery> {
    const images = { ...(await defaultImages()), ...this.images };
    const runId = randomUUID();
    const network = await new Network().start();
    try {
      const stack = await startStack(images, network, runId);
      const environment = {
        ...stackEnvironment,
        ORRERY_DEFAULT_MODEL: 'off',
        ORRERY_LOG_LEVEL: 'warn',
        ...this.environment,
      };
      const provisioned = await this.process(images.orrery, 'provision', environment, network, runId)
        .withWaitStrategy(Wait.forOneShotStartup())
        .start();
      await provisioned.stop();
      const [api, consumers, jobs] = await Promise.all([
        startPublishing(
          this.process(
            images.orrery,
            'api',
            { ...environment, ORRERY_API_PORT: String(apiPort) },
            network,
            runId,
          )
            .withExposedPorts(apiPort)
            .withWaitStrategy(Wait.forHttp('/readyz', apiPort)),
        ),
        startPublishing(
          this.process(images.orrery, 'consumers', environment, network, runId)
            .withExposedPorts(8090)
            .withWaitStrategy(Wait.forHttp('/readyz', 8090)),
        ),
        startPublishing(
          this.process(images.orrery, 'jobs', environment, network, runId)
            .withExposedPorts(8091)
            .withWaitStrategy(Wait.forHttp('/readyz', 8091)),
        ),
      ]);
      const orrery = new StartedOrrery({
        apiUrl: `http://${api.getHost()}:${api.getMappedPort(apiPort)}`,
        api,
        containers: [stack.postgres, stack.clickhouse, stack.kafka, stack.registry, api, consumers, jobs],
        network,
      });
      await orrery.prepareOrg({
        name: this.orgName,
        tracing: this.tracing,
        creditCents: this.creditCents,
        keys: Object.keys(this.keys).length > 0 ? this.keys : { default: allScopes },
      });
      return orrery;
    } catch (error) {
      await removeRun(runId);
      await network.stop().catch(() => undefined);
      throw error;
    }
  }

  private process(
    image: string,
    name: string,
    environment: Record<string, string>,
    network: StartedNetwork,
    runId: string,
  ) {
    return new GenericContainer(image)
      .withLabels({ [runLabel]: runId })
      .withNetwork(network)
      .withNetworkAliases(`orrery-${name}`)
      .withEnvironment(environment)
      .withCommand([name])
      .withStartupTimeout(120_000);
  }
}
