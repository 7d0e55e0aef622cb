import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { api, dataOf } from '../api/client.ts';
import type { Member, NewInvitation, OpenInvitation, Role } from '../api/types.ts';
import {
  ConfirmDialog,
  FormError,
  fieldErrors,
  Loaded,
  SelectField,
  SubmitButton,
  TextField,
  useFocusOnError,
  When,
} from '../components.tsx';
import { sessionKey, useSession } from '../session.tsx';
import { useOrg } from '../shell.tsx';
import { orgKeys, personNamer, usePeople } from './org-queries.ts';
import { ShownOnce } from './shown-once.tsx';

// Settings > Members: the org's members (owners remove anyone, anyone leaves) and its open
// invitations (owners invite by email, the link shown once, and withdraw).

type Removal = { kind: 'member'; member: Member } | { kind: 'invitation'; invitation: OpenInvitation };

export function MembersPage() {
  const org = useOrg();
  const me = useSession().data!.person;
  const people = usePeople(org.id);
  const [invited, setInvited] = useState<NewInvitation>();
  const [removing, setRemoving] = useState<Removal>();
  const client = useQueryClient();
  const navigate = useNavigate();
  const owner = org.role === 'owner';
  const remove = useMutation({
    mutationFn: (removal: Removal) => {
      const orgId = org.id;
      return removal.kind === 'member'
        ? dataOf(
            api.DELETE('/api/orgs/{orgId}/members/{personId}', {
              params: { path: { orgId, personId: removal.member.person_id } },
            }),
          )
        : dataOf(
            api.DELETE('/api/orgs/{orgId}/invitations/{invitationId}', {
              params: { path: { orgId, invitationId: removal.invitation.id } },
            }),
          );
    },
    onSuccess: async (_answer, removal) => {
      setRemoving(undefined);
      if (removal.kind === 'member' && removal.member.person_id === me.id) {
        // Left: the org is no longer the person's.
        await client.invalidateQueries({ queryKey: sessionKey });
        navigate('/', { replace: true });
        return;
      }
      await client.invalidateQueries({ queryKey: orgKeys.people(org.id) });
    },
  });
  const ask = (removal: Removal) => {
    remove.reset();
    setRemoving(removal);
  };
  const nameOf = personNamer(people.data?.members);

  return (
    <>
      <section aria-labelledby="members-title">
        <h2 id="members-title">Members</h2>
        <Loaded query={people} what="the members">
          {(data) => (
            <MemberTable
              members={data.members}
              me={me.id}
              owner={owner}
              onRemove={(member) => ask({ kind: 'member', member })}
            />
          )}
        </Loaded>
      </section>
      {owner ? (
        <Invite orgId={org.id} onInvited={setInvited} />
      ) : (
        <p>Only an owner of the org invites people.</p>
      )}
      {invited && <InvitationLink invited={invited} onDone={() => setInvited(undefined)} />}
      {people.data && people.data.invitations.length > 0 && (
        <section aria-labelledby="invitations-title">
          <h2 id="invitations-title">Open invitations</h2>
          <InvitationTable
            invitations={people.data.invitations}
            owner={owner}
            nameOf={nameOf}
            onWithdraw={(invitation) => ask({ kind: 'invitation', invitation })}
          />
        </section>
      )}
      {removing && (
        <ConfirmDialog
          {...removalWords(removing, me.id, org.name)}
          onConfirm={() => remove.mutate(removing)}
          onCancel={() => setRemoving(undefined)}
          pending={remove.isPending}
          error={remove.error}
        />
      )}
    </>
  );
}

function removalWords(removal: Removal, me: string, orgName: string) {
  if (removal.kind === 'invitation')
    return {
      title: `Withdraw the invitation of ${removal.invitation.email}?`,
      confirm: 'Withdraw the invitation',
      children: <p>Its link stops working at once. You can invite them again later.</p>,
    };
  const { member } = removal;
  if (member.person_id === me)
    return {
      title: `Leave ${orgName}?`,
      confirm: 'Leave the org',
      children: (
        <p>
          You lose access to its keys and data, and the sandbox tokens you minted stop working. An owner can
          invite you again.
        </p>
      ),
    };
  return {
    title: `Remove ${member.name || member.email} from ${orgName}?`,
    confirm: 'Remove the member',
    children: (
      <p>
        They lose access at once, and the sandbox tokens they minted stop working. The keys they created stay
        until revoked under API keys.
      </p>
    ),
  };
}

function MemberTable({
  members,
  me,
  owner,
  onRemove,
}: {
  members: Member[];
  me: string;
  owner: boolean;
  onRemove: (member: Member) => void;
}) {
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Member since</th>
            <th scope="col">
              <span className="visually-hidden">Action</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {members.map((member) => {
            const who = member.name || member.email || member.person_id;
            return (
              <tr key={member.person_id}>
                <th scope="row">
                  {who}
                  {member.person_id === me && ' (you)'}
                </th>
                <td>{member.email}</td>
                <td>{member.role}</td>
                <td>
                  <When iso={member.added_at} />
                </td>
                <td>
                  {member.person_id === me ? (
                    <button type="button" onClick={() => onRemove(member)}>
                      Leave
                    </button>
                  ) : (
                    owner && (
                      <button
                        type="button"
                        className="danger"
                        onClick={() => onRemove(member)}
                        aria-label={`Remove ${who}`}
                      >
                        Remove
                      </button>
                    )
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

const inviteFields = ['email', 'role'] as const;

function Invite({ orgId, onInvited }: { orgId: string; onInvited: (invited: NewInvitation) => void }) {
  const client = useQueryClient();
  const form = useRef<HTMLFormElement>(null);
  const [role, setRole] = useState<Role>('member');
  const invite = useMutation({
    mutationFn: (body: { email: string; role: Role }) =>
      dataOf(api.POST('/api/orgs/{orgId}/invitations', { params: { path: { orgId } }, body })),
    onSuccess: async ({ data }) => {
      form.current?.reset();
      setRole('member');
      onInvited(data);
      await client.invalidateQueries({ queryKey: orgKeys.people(orgId) });
    },
  });
  const errors = fieldErrors(invite.error, inviteFields);
  useFocusOnError(form, invite.error, errors.field);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    invite.mutate({ email: String(new FormData(event.currentTarget).get('email') ?? ''), role });
  }
  return (
    <section aria-labelledby="invite-title">
      <h2 id="invite-title">Invite someone</h2>
      <form ref={form} onSubmit={submit} noValidate className="card">
        <TextField
          label="Their email"
          name="email"
          type="email"
          autoComplete="off"
          required
          hint="No mail is sent: you get a link to pass on. It works for a week, only for this email."
          error={errors.of('email')}
        />
        <SelectField
          label="Role"
          name="role"
          value={role}
          onChange={(value) => setRole(value as Role)}
          error={errors.of('role')}
        >
          <option value="member">Member</option>
          <option value="owner">Owner (may invite and remove people)</option>
        </SelectField>
        <FormError message={errors.general} />
        <SubmitButton pending={invite.isPending} busy="Inviting…">
          Invite
        </SubmitButton>
      </form>
    </section>
  );
}

function InvitationLink({ invited, onDone }: { invited: NewInvitation; onDone: () => void }) {
  return (
    <ShownOnce
      titleId="invitation-link-title"
      title={`${invited.email} is invited as ${invited.role}`}
      label="The invitation link"
      value={invited.link}
      note={
        <>
          Pass it on to them now: it is shown this once. It works until <When iso={invited.expires_at} />,
          only for {invited.email}.
        </>
      }
      onDone={onDone}
    />
  );
}

function InvitationTable({
  invitations,
  owner,
  nameOf,
  onWithdraw,
}: {
  invitations: OpenInvitation[];
  owner: boolean;
  nameOf: (personId: string) => string;
  onWithdraw: (invitation: OpenInvitation) => void;
}) {
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Invited by</th>
            <th scope="col">Expires</th>
            <th scope="col">
              <span className="visually-hidden">Action</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {invitations.map((invitation) => (
            <tr key={invitation.id}>
              <th scope="row">{invitation.email}</th>
              <td>{invitation.role}</td>
              <td>{nameOf(invitation.invited_by)}</td>
              <td>
                <When iso={invitation.expires_at} />
              </td>
              <td>
                {owner && (
                  <button
                    type="button"
                    className="danger"
                    onClick={() => onWithdraw(invitation)}
                    aria-label={`Withdraw the invitation of ${invitation.email}`}
                  >
                    Withdraw
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
