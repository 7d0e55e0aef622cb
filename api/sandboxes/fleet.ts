import type { SandboxSize } from '../../domain/sandboxes/events.ts';
import { fleetHoldsSize, noSandboxes, placementOrder } from '../../domain/sandboxes/hosts.ts';
import type { Logger } from '../../platform/logger.ts';
import type { FleetHost, SandboxHosts } from '../../stores/sandbox-hosts.ts';
import { Unavailable } from '../errors.ts';

// What this API replica knows of the fleet (issue 47): the hosts' rows read from Postgres every
// second (stores/sandbox-hosts.ts), so routing a request to a sandbox's host costs no query, and a
// host whose lease ran out is refused at once instead of waited on. Calls in flight to a host
// whose lease runs out are cut short (a hung host never holds a caller hostage). Placement reads
// the hosts and what each holds afresh, since it must not place on stale room.

/** The host holding a sandbox or run cannot be reached now: 503, and the caller retries. */
export class HostUnreachable extends Unavailable {
  constructor(readonly hostId: string) {
    super(`The sandbox host holding this (${hostId}) cannot be reached right now`);
    this.name = 'HostUnreachable';
  }
}

export interface FleetOptions {
  /** The fleet this replica places on (ORRERY_SANDBOX_FLEET): hosts of other fleets are not its. */
  name: string;
  /** Reads the hosts this often. */
  refreshMs?: number;
}

export class Fleet {
  private hosts = new Map<string, FleetHost>();
  private readonly inFlight = new Map<string, Set<AbortController>>();
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly store: SandboxHosts,
    private readonly logger: Logger,
    private readonly options: FleetOptions,
  ) {}

  async start(): Promise<void> {
    await this.refresh().catch((error: unknown) => this.logger.warn({ err: error }, 'fleet: hosts not read'));
    this.timer = setInterval(() => {
      this.refresh().catch((error: unknown) => this.logger.warn({ err: error }, 'fleet: hosts not read'));
    }, this.options.refreshMs ?? 1_000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Reads the hosts now (once at a time); calls to a host whose lease ran out are aborted. */
  refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const hosts = await this.store.list();
        this.hosts = new Map(hosts.map((host) => [host.hostId, host]));
        for (const [hostId, calls] of this.inFlight)
          if (!this.hosts.get(hostId)?.live)
            for (const call of calls) call.abort(new HostUnreachable(hostId));
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  /** The live host with this id, to send a call to; HostUnreachable when its lease has run out. */
  async reach(hostId: string): Promise<FleetHost> {
    if (!this.hosts.has(hostId)) await this.refresh();
    const host = this.hosts.get(hostId);
    if (!host?.live) throw new HostUnreachable(hostId);
    return host;
  }

  /** Registers a call to a host, aborted if the host's lease runs out before it ends. */
  track(hostId: string, controller: AbortController): () => void {
    const calls = this.inFlight.get(hostId) ?? new Set();
    calls.add(controller);
    this.inFlight.set(hostId, calls);
    return () => {
      calls.delete(controller);
      if (calls.size === 0) this.inFlight.delete(hostId);
    };
  }

  /** The live hosts a new sandbox of `size` may go to, best first (domain/sandboxes/hosts.ts). */
  async placement(size: SandboxSize): Promise<FleetHost[]> {
    const [hosts, held] = await Promise.all([this.store.list(), this.store.held()]);
    const candidates = this.members(hosts).map((host) => ({
      ...host,
      held: held.get(host.hostId) ?? noSandboxes(),
    }));
    const byId = new Map(candidates.map((host) => [host.hostId, host]));
    return placementOrder(candidates, size).flatMap((hostId) => byId.get(hostId) ?? []);
  }

  /** Whether a live host could ever hold the size (the catalog's `available`, and a run's check). */
  async holdsSize(size: SandboxSize): Promise<boolean> {
    const hosts = this.members(await this.store.list());
    return fleetHoldsSize(
      hosts.map((host) => ({ ...host, held: noSandboxes() })),
      size,
    );
  }

  private members(hosts: FleetHost[]): FleetHost[] {
    return hosts.filter((host) => host.live && host.fleet === this.options.name);
  }
}
