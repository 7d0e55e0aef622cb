import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, dataOf } from '../api/client.ts';
import type { InvitationInfo } from '../api/types.ts';
import {
  ErrorPanel,
  FormError,
  fieldErrors,
  Loading,
  Page,
  SubmitButton,
  useFocusOnError,
  When,
} from '../components.tsx';
import { loginPath, orgPath } from '../paths.ts';
import { sessionKey, useLogout, useSession } from '../session.tsx';
import { AuthLayout } from './auth-layout.tsx';
import { SignupFields, signupBody, useSignup } from './signup.tsx';

// /invitations/:token, the link an owner passed on: a person logged in accepts it; anyone else
// signs up with it (and joins that org instead of making one), or logs in and comes back here.

export function InvitationPage() {
  const token = useParams().token ?? '';
  const session = useSession();
  const here = `/invitations/${encodeURIComponent(token)}`;
  const invitation = useQuery({
    queryKey: ['invitation', token],
    queryFn: async () =>
      (await dataOf(api.GET('/api/invitations/{token}', { params: { path: { token } } }))).data,
    retry: false,
  });
  return (
    <AuthLayout>
      <Page title={invitation.data ? `Join ${invitation.data.org.name}` : 'Join an org'}>
        {session.isPending || invitation.isPending ? (
          <Loading what="the invitation" />
        ) : invitation.isError ? (
          <ErrorPanel error={invitation.error} title="This invitation cannot be used" />
        ) : (
          <>
            <WhatItInvitesTo invitation={invitation.data} />
            {invitation.data.status !== 'open' ? null : session.data ? (
              <Accept token={token} email={session.data.person.email} />
            ) : (
              <SignUpWith token={token} here={here} email={invitation.data.email} />
            )}
          </>
        )}
      </Page>
    </AuthLayout>
  );
}

const closed = {
  accepted: 'It has been accepted already.',
  revoked: 'The owner withdrew it: ask them for a new one.',
  expired: 'It has expired (links last a week): ask the owner for a new one.',
} as const;

function WhatItInvitesTo({ invitation }: { invitation: InvitationInfo }) {
  return (
    <div
      className={invitation.status === 'open' ? 'panel' : 'panel panel-error'}
      role={invitation.status === 'open' ? undefined : 'alert'}
    >
      <p>
        <strong>{invitation.org.name}</strong> invites <strong>{invitation.email}</strong> as{' '}
        {invitation.role === 'owner' ? 'an owner' : 'a member'}.
      </p>
      <p>
        {invitation.status === 'open' ? (
          <>
            Open until <When iso={invitation.expires_at} />.
          </>
        ) : (
          closed[invitation.status]
        )}
      </p>
    </div>
  );
}

function Accept({ token, email }: { token: string; email: string }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const logout = useLogout(null);
  const accept = useMutation({
    mutationFn: () => dataOf(api.POST('/api/invitations/accept', { body: { invitation: token } })),
    onSuccess: async ({ data }) => {
      // The session's orgs now include it: read them again before showing the org.
      await client.invalidateQueries({ queryKey: sessionKey });
      navigate(orgPath(data.id, '/settings'), { replace: true });
    },
  });
  return (
    <div className="card">
      <p>
        You are logged in as <strong>{email}</strong>. An invitation works only for the email it was made for.
      </p>
      <FormError message={fieldErrors(accept.error, []).general} />
      <div className="actions">
        <button type="button" className="primary" onClick={() => accept.mutate()} disabled={accept.isPending}>
          {accept.isPending ? 'Joining…' : 'Accept the invitation'}
        </button>
        <button type="button" onClick={() => logout.mutate()} disabled={logout.isPending}>
          Not {email}? Log out
        </button>
      </div>
    </div>
  );
}

function SignUpWith({ token, here, email }: { token: string; here: string; email: string }) {
  const navigate = useNavigate();
  const form = useRef<HTMLFormElement>(null);
  const signup = useSignup((session) => {
    const joined = session.orgs[0];
    navigate(joined ? orgPath(joined.id, '/settings') : '/', { replace: true });
  });
  useFocusOnError(form, signup.error, fieldErrors(signup.error, ['name', 'email', 'password']).field);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    signup.mutate(signupBody(event.currentTarget, token));
  }
  return (
    <>
      <p className="lead">
        Sign up with the email the invitation was made for, and you join the org that invited you. Have an
        account? <Link to={loginPath(here)}>Log in to accept it</Link>.
      </p>
      <form ref={form} onSubmit={submit} noValidate className="card">
        <SignupFields error={signup.error} withOrg={false} email={email} />
        <SubmitButton pending={signup.isPending} busy="Signing up…">
          Sign up and join
        </SubmitButton>
      </form>
    </>
  );
}
