import type { OrgEvent } from '../../domain/orgs/events.ts';
import { ApiError } from '../errors.ts';
import { commandMeta, type PeopleCommands } from './commands.ts';
import { type InvitationSecret, parseInvitationToken } from './invitation-links.ts';

// Redeeming an invitation, at sign-up or by a person logged in: the decision, made before
// anything is published, so a bad invitation leaves no account behind.

export const badInvitation = () =>
  new ApiError(
    'invitation_not_found',
    404,
    'No such invitation: check the link, or ask an owner of the org for a new one.',
    'invitation',
  );

export function invitationOf(token: string): InvitationSecret {
  const invitation = parseInvitationToken(token);
  if (!invitation) throw badInvitation();
  return invitation;
}

/** The events accepting the invitation would publish for this person (a refusal is thrown). */
export function decideAcceptance(
  commands: PeopleCommands,
  token: string,
  person: { personId: string; email: string },
  now: Date,
): OrgEvent[] {
  const invitation = invitationOf(token);
  return commands.decideOrg({
    ...commandMeta(invitation.orgId, now),
    actor: { kind: 'person', personId: person.personId },
    type: 'AcceptInvitation',
    invitationId: invitation.invitationId,
    secretHash: invitation.secretHash,
    personId: person.personId,
    email: person.email,
  });
}
