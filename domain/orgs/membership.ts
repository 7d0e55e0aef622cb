import type { MembershipEvent, Role } from './events.ts';
import type { InvitationState, OrgState } from './org.ts';
import { OrgCommandRefused } from './refusals.ts';

// Who belongs to an org and who may change that: an owner invites and removes; anyone may leave;
// the last owner may not. Operators (the admin command) act as an owner of every org.

export type Actor = { kind: 'operator' } | { kind: 'person'; personId: string };

export const operator: Actor = { kind: 'operator' };

interface MembershipMeta {
  eventId: string;
  orgId: string;
  now: Date;
  actor: Actor;
}

export type MembershipCommand =
  | (MembershipMeta & { type: 'AddMember'; personId: string; role: Role })
  | (MembershipMeta & {
      type: 'InviteMember';
      invitationId: string;
      email: string;
      role: Role;
      secretHash: string;
      expiresAt: Date;
    })
  | (MembershipMeta & {
      type: 'AcceptInvitation';
      invitationId: string;
      secretHash: string;
      /** The accepting person's id and normalized email (the invitation names an email). */
      personId: string;
      email: string;
    })
  | (MembershipMeta & { type: 'RevokeInvitation'; invitationId: string })
  | (MembershipMeta & { type: 'RemoveMember'; personId: string });

/** An invitation as its holder sees it: open until accepted, withdrawn or past its expiry. */
export type InvitationStatus = InvitationState['status'] | 'expired';

export function invitationStatus(invitation: InvitationState, now: Date): InvitationStatus {
  return invitation.status === 'open' && invitation.expiresAt.getTime() <= now.getTime()
    ? 'expired'
    : invitation.status;
}

export function isOwner(org: OrgState, actor: Actor): boolean {
  return actor.kind === 'operator' || org.members[actor.personId]?.role === 'owner';
}

export function isMember(org: OrgState, personId: string): boolean {
  return org.members[personId] !== undefined;
}

function requireOwner(org: OrgState, actor: Actor): void {
  if (!isOwner(org, actor))
    throw new OrgCommandRefused('not_owner', 'Only an owner of the org may do this: ask one of its owners.');
}

const ownerCount = (org: OrgState) =>
  Object.values(org.members).filter((member) => member.role === 'owner').length;

export function decideMembership(command: MembershipCommand, org: OrgState): MembershipEvent[] {
  const base = { eventId: command.eventId, orgId: command.orgId, occurredAt: command.now };
  switch (command.type) {
    case 'AddMember': {
      requireOwner(org, command.actor);
      if (org.members[command.personId]?.role === command.role) return [];
      return [{ ...base, type: 'MemberAdded', personId: command.personId, role: command.role }];
    }
    case 'InviteMember': {
      requireOwner(org, command.actor);
      const { invitationId, email, role, secretHash, expiresAt } = command;
      const invitedBy = command.actor.kind === 'person' ? command.actor.personId : '';
      return [
        { ...base, type: 'InvitationCreated', invitationId, email, role, secretHash, invitedBy, expiresAt },
      ];
    }
    case 'AcceptInvitation': {
      const invitation = org.invitations[command.invitationId];
      // A wrong secret or another person's invitation reads as no invitation: it reveals nothing.
      if (!invitation || invitation.secretHash !== command.secretHash || invitation.email !== command.email)
        throw new OrgCommandRefused(
          'invitation_not_found',
          'No such invitation for this account: log in with the email address it was sent to, or ask for a new one.',
        );
      const status = invitationStatus(invitation, command.now);
      if (status !== 'open')
        throw new OrgCommandRefused(
          'invitation_closed',
          `This invitation was ${status === 'expired' ? 'open until ' + invitation.expiresAt.toISOString() : status}: ask an owner of the org for a new one.`,
        );
      const accepted = {
        ...base,
        type: 'InvitationAccepted' as const,
        invitationId: command.invitationId,
        personId: command.personId,
      };
      if (isMember(org, command.personId)) return [accepted];
      return [accepted, { ...base, type: 'MemberAdded', personId: command.personId, role: invitation.role }];
    }
    case 'RevokeInvitation': {
      requireOwner(org, command.actor);
      const invitation = org.invitations[command.invitationId];
      if (!invitation)
        throw new OrgCommandRefused(
          'invitation_not_found',
          `No invitation ${command.invitationId} in this org.`,
        );
      return invitation.status === 'open'
        ? [{ ...base, type: 'InvitationRevoked', invitationId: command.invitationId }]
        : [];
    }
    case 'RemoveMember': {
      const leaving = command.actor.kind === 'person' && command.actor.personId === command.personId;
      if (!leaving) requireOwner(org, command.actor);
      const member = org.members[command.personId];
      if (!member)
        throw new OrgCommandRefused('member_not_found', `${command.personId} is not a member of this org.`);
      if (member.role === 'owner' && ownerCount(org) === 1)
        throw new OrgCommandRefused(
          'last_owner',
          'The last owner cannot leave or be removed: make another member an owner first.',
        );
      return [{ ...base, type: 'MemberRemoved', personId: command.personId }];
    }
    default: {
      const unhandled: never = command;
      return unhandled;
    }
  }
}

/** An invitation can be accepted for a week (Slack's and GitHub's org invitations: 7 days). */
export const invitationLifetimeMs = 7 * 24 * 60 * 60 * 1000;
