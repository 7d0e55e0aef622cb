import { hostAuthorization } from '../platform/host-secret.ts';
import type { Logger } from '../platform/logger.ts';
import {
  announcementAnswer,
  announcePath,
  type HostAnnouncement,
  hostPath,
} from '../schemas/sandbox-hosts.ts';

// A host is a member of the fleet while its lease runs (stores/sandbox-hosts.ts): it announces
// itself to the API every few seconds, whichever replica the load balancer picks, and each
// announcement renews the lease. Stopping on purpose ends the lease at once; a host that dies
// simply stops announcing, and its lease runs out.

export interface Membership {
  /** Whether an announcement has been taken since this host started (its /readyz says so). */
  announced(): boolean;
  /** Whether an operator has drained this host (no new placements). */
  draining(): boolean;
  /** Stops announcing and ends the lease. */
  leave(): Promise<void>;
}

export interface MembershipDeps {
  hostId: string;
  /** The API (a load balancer's address), or its replicas, tried in turn while one does not answer. */
  apiUrls: readonly string[];
  secret: string;
  everyMs: number;
  logger: Logger;
  /** What to announce, read anew each time. */
  announcement(): Promise<HostAnnouncement>;
}

/** How long one announcement may take before it counts as failed. */
const announceTimeoutMs = 2_000;

export function startMembership(deps: MembershipDeps): Membership {
  const path = hostPath(announcePath, deps.hostId);
  let turn = 0;
  const url = () => `${deps.apiUrls[turn % deps.apiUrls.length]}${path}`;
  const headers = { authorization: hostAuthorization(deps.secret), 'content-type': 'application/json' };
  let taken = false;
  let draining = false;
  let failing = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  async function announce(): Promise<void> {
    try {
      const response = await fetch(url(), {
        method: 'PUT',
        headers,
        body: JSON.stringify(await deps.announcement()),
        signal: AbortSignal.timeout(announceTimeoutMs),
      });
      const answer: unknown = await response.json().catch(() => undefined);
      if (!response.ok) throw new Error(`the API answered ${response.status}: ${JSON.stringify(answer)}`);
      draining = announcementAnswer.parse(answer).draining;
      taken = true;
      if (failing) deps.logger.info({ hostId: deps.hostId }, 'sandbox host: announced again');
      failing = false;
    } catch (error) {
      // Said once per outage, not every few seconds: the API may be restarting.
      if (!failing)
        deps.logger.warn(
          { err: error, hostId: deps.hostId, url: url() },
          'sandbox host: announcement failed',
        );
      failing = true;
      turn += 1;
    }
  }

  const loop = async () => {
    await announce();
    if (!stopped) timer = setTimeout(loop, deps.everyMs);
  };
  void loop();

  return {
    announced: () => taken,
    draining: () => draining,
    async leave() {
      stopped = true;
      clearTimeout(timer);
      await fetch(url(), { method: 'DELETE', headers, signal: AbortSignal.timeout(announceTimeoutMs) }).catch(
        (error: unknown) =>
          deps.logger.warn({ err: error }, 'sandbox host: could not end its lease; it runs out by itself'),
      );
    },
  };
}
