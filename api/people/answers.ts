import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { roles } from '../../domain/orgs/events.ts';
import type { OrgState } from '../../domain/orgs/org.ts';
import type { PersonState } from '../../domain/people/person.ts';
import type { OrgDirectory } from '../auth/org-directory.ts';

// The people surface's answers, as /openapi.json documents them.

export const personObject = z.object({ id: z.string(), email: z.string(), name: z.string() });
export const orgMembership = z.object({ id: z.string(), name: z.string(), role: z.enum(roles) });

export const sessionAnswer = z.object({
  data: z.object({
    person: personObject,
    orgs: z.array(orgMembership),
    csrf_token: z.string().describe('send as X-CSRF-Token with every request that changes something'),
  }),
});

export function personData(person: Pick<PersonState, 'personId' | 'email' | 'name'>) {
  return { id: person.personId, email: person.email, name: person.name };
}

/** The session's answer: the person, their orgs as the directory has them, and the CSRF token. */
export function sessionData(
  directory: OrgDirectory,
  person: Pick<PersonState, 'personId' | 'email' | 'name'>,
  csrfToken: string,
) {
  return {
    person: personData(person),
    orgs: membershipsOf(directory.orgsOf(person.personId), person.personId),
    csrf_token: csrfToken,
  };
}

/** Where the caller reached this API, for the links an answer carries (invitations, /device). */
export function requestOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

export function membershipsOf(orgs: OrgState[], personId: string) {
  return orgs.flatMap((org) => {
    const member = org.members[personId];
    return member ? [{ id: org.orgId, name: org.name, role: member.role }] : [];
  });
}
