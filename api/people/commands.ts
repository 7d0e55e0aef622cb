import { randomUUID } from 'node:crypto';
import { decide as decideOrg, type OrgCommand, OrgCommandRefused } from '../../domain/orgs/decide.ts';
import type { OrgEvent } from '../../domain/orgs/events.ts';
import { decide as decidePerson, type PersonCommand } from '../../domain/people/decide.ts';
import type { PersonEvent } from '../../domain/people/events.ts';
import type { PersonState } from '../../domain/people/person.ts';
import { waitFor } from '../../platform/poll.ts';
import type { PgPool } from '../../platform/postgres.ts';
import { publishOrgEvents } from '../../producers/org.ts';
import { publishPersonEvents } from '../../producers/person.ts';
import type { EventProducer } from '../../producers/producer.ts';
import { personShows } from '../../stores/people.ts';
import type { OrgDirectory } from '../auth/org-directory.ts';
import { ApiError, Unavailable } from '../errors.ts';

// The shell of the people surface's commands: decide against the API's own view of the org (the
// directory, folded from the org stream), publish, and wait until the directory has applied the
// events, so the caller's next request (a key just made, a member just removed) sees them. A
// person's events are waited for in the people read model the same way (`untilPersonShown`).

/** How each refusal of the org decider is answered; `param` where one field is at fault. */
const refusalStatus: Record<OrgCommandRefused['code'], number> = {
  org_not_found: 404,
  org_exists: 409,
  key_not_found: 404,
  invalid_request: 422,
  not_owner: 403,
  not_member: 403,
  member_not_found: 404,
  last_owner: 409,
  invitation_not_found: 404,
  invitation_closed: 410,
  price_not_found: 404,
};

export function refusalError(refusal: OrgCommandRefused): ApiError {
  return new ApiError(refusal.code, refusalStatus[refusal.code], refusal.message);
}

export const commandMeta = (orgId: string, now: Date) => ({ eventId: randomUUID(), orgId, now });
export const personCommandMeta = (personId: string, now: Date) => ({ eventId: randomUUID(), personId, now });

/** What every route module of the people surface is given. */
export interface PeopleRouteDeps {
  pool: PgPool;
  directory: OrgDirectory;
  commands: PeopleCommands;
  now: () => Date;
  /** Whether the directory has read the org stream to its end (else a key cannot be judged). */
  keysLoaded: () => boolean;
}

export class PeopleCommands {
  constructor(
    private readonly directory: OrgDirectory,
    private readonly producer: EventProducer,
    private readonly pool: PgPool,
    /** How long a command waits for its events to come back through the org stream. */
    private readonly appliedWithinMs = 5_000,
  ) {}

  /** What the command would decide now, without publishing it (a refusal is thrown as ApiError). */
  decideOrg(command: OrgCommand): OrgEvent[] {
    try {
      return decideOrg(command, this.directory.org(command.orgId));
    } catch (error) {
      throw error instanceof OrgCommandRefused ? refusalError(error) : error;
    }
  }

  async org(command: OrgCommand): Promise<OrgEvent[]> {
    return this.publishOrg(this.decideOrg(command));
  }

  async publishOrg(events: OrgEvent[]): Promise<OrgEvent[]> {
    await publishOrgEvents(this.producer, events);
    const last = events.at(-1);
    if (last) await this.untilApplied(last.eventId);
    return events;
  }

  /**
   * Publishes what the person command decides. Kept apart from `untilPersonShown` because a
   * failure here means nothing was recorded (sign-up gives its email claim back), and a wait that
   * runs out does not.
   */
  async person(command: PersonCommand, state?: PersonState): Promise<PersonEvent[]> {
    const events = decidePerson(command, state);
    await publishPersonEvents(this.producer, events);
    return events;
  }

  /** Waits until the people read model shows the events (a person just signed up can log in). */
  async untilPersonShown(events: PersonEvent[]): Promise<void> {
    const last = events.at(-1);
    if (last) await this.untilVisible('the people read model', () => personShows(this.pool, last));
  }

  private untilApplied(eventId: string): Promise<void> {
    return this.untilVisible('the org stream to bring the change back', () =>
      this.directory.hasApplied(eventId),
    );
  }

  private async untilVisible(awaited: string, visible: () => boolean | Promise<boolean>): Promise<void> {
    try {
      await waitFor(awaited, visible, {
        timeoutMs: this.appliedWithinMs,
        intervalMs: 10,
        maxIntervalMs: 100,
      });
    } catch {
      // Recorded in Kafka, so it will take effect; only this answer cannot say so yet.
      throw new Unavailable('The change was recorded but is not visible yet');
    }
  }
}
