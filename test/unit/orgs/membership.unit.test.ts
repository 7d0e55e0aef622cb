import { describe, expect, it } from 'vitest';
import { decide, type OrgCommand, OrgCommandRefused } from '../../../domain/orgs/decide.ts';
import type { OrgEvent, Role } from '../../../domain/orgs/events.ts';
import { type Actor, operator } from '../../../domain/orgs/membership.ts';
import { evolve, type MaybeOrg, type OrgState } from '../../../domain/orgs/org.ts';

// Who may change an org's members: the membership decisions (domain/orgs/membership.ts) through
// the org decider, each against an org folded from its events.

const now = new Date('2026-11-22T10:00:00Z');
const orgId = 'org_1';
const meta = { eventId: 'e', orgId, now };
const person = (personId: string): Actor => ({ kind: 'person', personId });
const owner = person('p_owner');
const member = person('p_member');
const secret = 'f'.repeat(64);
const inAWeek = new Date(now.getTime() + 7 * 24 * 3600_000);

function apply(state: MaybeOrg, command: OrgCommand): OrgState {
  return decide(command, state).reduce(evolve, state)!;
}

/** The command's refusal, or undefined when it was not refused. */
function refusal(command: OrgCommand, state: MaybeOrg): OrgCommandRefused | undefined {
  try {
    decide(command, state);
    return undefined;
  } catch (error) {
    if (error instanceof OrgCommandRefused) return error;
    throw error;
  }
}

const types = (events: OrgEvent[]) => events.map((event) => event.type);

// An org made at sign-up by p_owner, with p_member added by the owner, and one open invitation.
const signedUp = apply(undefined, { ...meta, type: 'CreateOrg', name: 'Acme', owner: 'p_owner' });
const withMember = apply(signedUp, {
  ...meta,
  type: 'AddMember',
  actor: owner,
  personId: 'p_member',
  role: 'member',
});
const invite = (actor: Actor, invitationId = 'inv_1', role: Role = 'member'): OrgCommand => ({
  ...meta,
  type: 'InviteMember',
  actor,
  invitationId,
  email: 'ada@example.com',
  role,
  secretHash: secret,
  expiresAt: inAWeek,
});
const invited = apply(withMember, invite(owner));
const accept = (overrides: Partial<Extract<OrgCommand, { type: 'AcceptInvitation' }>> = {}): OrgCommand => ({
  ...meta,
  type: 'AcceptInvitation',
  actor: person('p_ada'),
  invitationId: 'inv_1',
  secretHash: secret,
  personId: 'p_ada',
  email: 'ada@example.com',
  ...overrides,
});
const remove = (actor: Actor, personId: string): OrgCommand => ({
  ...meta,
  type: 'RemoveMember',
  actor,
  personId,
});
const revoke = (actor: Actor, invitationId = 'inv_1'): OrgCommand => ({
  ...meta,
  type: 'RevokeInvitation',
  actor,
  invitationId,
});

describe('an org made at sign-up', () => {
  it('has its creator as its one owner; an org made by an operator has no one', () => {
    expect(signedUp.members).toEqual({ p_owner: { personId: 'p_owner', role: 'owner', addedAt: now } });
    expect(apply(undefined, { ...meta, type: 'CreateOrg', name: 'Ops' }).members).toEqual({});
  });
});

describe('adding a member', () => {
  it('an operator gives an org without members its first owner', () => {
    const empty = apply(undefined, { ...meta, type: 'CreateOrg', name: 'Ops' });
    const command: OrgCommand = {
      ...meta,
      type: 'AddMember',
      actor: operator,
      personId: 'p_1',
      role: 'owner',
    };
    expect(types(decide(command, empty))).toEqual(['MemberAdded']);
    expect(apply(empty, command).members.p_1?.role).toBe('owner');
  });

  it('adding a member again with the same role decides nothing; another role changes it', () => {
    const same: OrgCommand = {
      ...meta,
      type: 'AddMember',
      actor: owner,
      personId: 'p_member',
      role: 'member',
    };
    expect(decide(same, withMember)).toEqual([]);
    const promoted = apply(withMember, { ...same, role: 'owner' });
    expect(promoted.members.p_member?.role).toBe('owner');
  });

  it('a member may not add anyone', () => {
    const command: OrgCommand = {
      ...meta,
      type: 'AddMember',
      actor: member,
      personId: 'p_x',
      role: 'member',
    };
    expect(refusal(command, withMember)?.code).toBe('not_owner');
  });
});

describe('inviting', () => {
  it('an owner invites, and the invitation names them', () => {
    const [event] = decide(invite(owner), withMember);
    expect(event).toEqual({
      type: 'InvitationCreated',
      eventId: 'e',
      orgId,
      occurredAt: now,
      invitationId: 'inv_1',
      email: 'ada@example.com',
      role: 'member',
      secretHash: secret,
      invitedBy: 'p_owner',
      expiresAt: inAWeek,
    });
    expect(invited.invitations.inv_1?.status).toBe('open');
  });

  it("an operator's invitation names no one", () => {
    expect(decide(invite(operator), withMember)).toMatchObject([{ invitedBy: '' }]);
  });

  it.each([
    ['a member', member],
    ['someone outside the org', person('p_stranger')],
  ])('%s may not invite', (_, actor) => {
    expect(refusal(invite(actor), withMember)?.code).toBe('not_owner');
  });
});

describe('accepting an invitation', () => {
  it('with its secret and email, open and unexpired, adds the person with its role', () => {
    expect(types(decide(accept(), invited))).toEqual(['InvitationAccepted', 'MemberAdded']);
    const joined = apply(invited, accept());
    expect(joined.members.p_ada).toEqual({ personId: 'p_ada', role: 'member', addedAt: now });
    expect(joined.invitations.inv_1?.status).toBe('accepted');
  });

  it('gives the role the invitation names', () => {
    const asOwner = apply(withMember, invite(owner, 'inv_o', 'owner'));
    expect(apply(asOwner, accept({ invitationId: 'inv_o' })).members.p_ada?.role).toBe('owner');
  });

  it('adds a person who is already a member once: the invitation is accepted, nothing else', () => {
    const already = apply(invited, {
      ...meta,
      type: 'AddMember',
      actor: owner,
      personId: 'p_ada',
      role: 'member',
    });
    expect(types(decide(accept(), already))).toEqual(['InvitationAccepted']);
    expect(Object.keys(apply(already, accept()).members).sort()).toEqual(['p_ada', 'p_member', 'p_owner']);
  });

  it.each([
    ['a wrong secret', accept({ secretHash: 'e'.repeat(64) })],
    ['another email', accept({ email: 'grace@example.com' })],
    ['an unknown invitation', accept({ invitationId: 'inv_nope' })],
  ])('is refused with %s, as if there were no invitation', (_, command) => {
    const refused = refusal(command, invited);
    expect(refused?.code).toBe('invitation_not_found');
    expect(refused?.message).not.toContain('ada@example.com');
  });

  it('is refused once the invitation expired (at its expiry, not only after)', () => {
    expect(refusal({ ...accept(), now: inAWeek }, invited)?.code).toBe('invitation_closed');
    expect(refusal({ ...accept(), now: new Date(inAWeek.getTime() + 1) }, invited)?.code).toBe(
      'invitation_closed',
    );
    expect(types(decide({ ...accept(), now: new Date(inAWeek.getTime() - 1) }, invited))).toContain(
      'InvitationAccepted',
    );
  });

  it('is refused once it was accepted or revoked', () => {
    const accepted = apply(invited, accept());
    expect(refusal(accept(), accepted)?.message).toMatch(/accepted/);
    expect(refusal(accept({ personId: 'p_other' }), accepted)?.code).toBe('invitation_closed');
    const revoked = apply(invited, revoke(owner));
    expect(refusal(accept(), revoked)?.code).toBe('invitation_closed');
    expect(refusal(accept(), revoked)?.message).toMatch(/revoked/);
  });
});

describe('revoking an invitation', () => {
  it('an owner revokes an open one; revoking it again decides nothing', () => {
    expect(types(decide(revoke(owner), invited))).toEqual(['InvitationRevoked']);
    const revoked = apply(invited, revoke(owner));
    expect(revoked.invitations.inv_1?.status).toBe('revoked');
    expect(decide(revoke(owner), revoked)).toEqual([]);
    expect(decide(revoke(operator), revoked)).toEqual([]);
  });

  it('an accepted invitation is not revoked afterwards', () => {
    const accepted = apply(invited, accept());
    expect(decide(revoke(owner), accepted)).toEqual([]);
  });

  it('a member may not revoke; an unknown invitation is refused', () => {
    expect(refusal(revoke(member), invited)?.code).toBe('not_owner');
    expect(refusal(revoke(owner, 'inv_nope'), invited)?.code).toBe('invitation_not_found');
  });
});

describe('removing a member', () => {
  it('an owner removes a member', () => {
    expect(types(decide(remove(owner, 'p_member'), withMember))).toEqual(['MemberRemoved']);
    expect(apply(withMember, remove(owner, 'p_member')).members.p_member).toBeUndefined();
  });

  it('a member leaves on their own', () => {
    expect(apply(withMember, remove(member, 'p_member')).members).not.toHaveProperty('p_member');
  });

  it('a member may not remove another member or an owner', () => {
    const two = apply(withMember, {
      ...meta,
      type: 'AddMember',
      actor: owner,
      personId: 'p_two',
      role: 'member',
    });
    expect(refusal(remove(member, 'p_two'), two)?.code).toBe('not_owner');
    expect(refusal(remove(member, 'p_owner'), two)?.code).toBe('not_owner');
  });

  it('the last owner can neither leave nor be removed, even by an operator', () => {
    expect(refusal(remove(owner, 'p_owner'), withMember)?.code).toBe('last_owner');
    expect(refusal(remove(operator, 'p_owner'), withMember)?.code).toBe('last_owner');
  });

  it('with a second owner, an owner may leave', () => {
    const two = apply(withMember, {
      ...meta,
      type: 'AddMember',
      actor: owner,
      personId: 'p_member',
      role: 'owner',
    });
    const left = apply(two, remove(owner, 'p_owner'));
    expect(Object.keys(left.members)).toEqual(['p_member']);
    expect(refusal(remove(member, 'p_member'), left)?.code).toBe('last_owner');
  });

  it('someone who is not a member is refused', () => {
    expect(refusal(remove(owner, 'p_stranger'), withMember)?.code).toBe('member_not_found');
  });
});

describe('membership and the rest of the org', () => {
  it('a key is created by a member or an operator, not by someone outside the org', () => {
    const key = (createdBy: string): OrgCommand => ({
      ...meta,
      type: 'CreateApiKey',
      keyId: `key_${createdBy || 'op'}`,
      name: 'n',
      keyHash: `h_${createdBy}`,
      keyPrefix: 'p',
      scopes: ['traces:write'],
      createdBy,
    });
    expect(apply(withMember, key('p_member')).keys.key_p_member?.createdBy).toBe('p_member');
    expect(apply(withMember, key('')).keys.key_op?.createdBy).toBe('');
    expect(refusal(key('p_stranger'), withMember)?.code).toBe('not_member');
  });

  it('membership commands need the org', () => {
    expect(refusal(invite(operator), undefined)?.code).toBe('org_not_found');
  });

  it('membership events before the org exists change nothing', () => {
    const event: OrgEvent = { ...meta, occurredAt: now, type: 'MemberAdded', personId: 'p', role: 'owner' };
    expect(evolve(undefined, event)).toBeUndefined();
  });
});
