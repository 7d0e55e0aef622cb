import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, dataOf } from '../api/client.ts';
import { FormError, fieldErrors, Loading, Page, useFocusOnError } from '../components.tsx';
import { sessionKey, useLogout, useSession } from '../session.tsx';
import { AuthLayout } from './auth-layout.tsx';
import { SignupFields, signupBody, useSignup } from './signup.tsx';

// /invitations/:token, the link an owner passed on: a person logged in accepts it; anyone else
// signs up with it (and joins that org instead of making one), or logs in and comes back here.

export function InvitationPage() {
  const token = useParams().token ?? '';
  const session = useSession();
  const here = `/invitations/${encodeURIComponent(token)}`;
  return (
    <AuthLayout>
      <Page title="Join an org">
        {session.isPending ? (
          <Loading what="your session" />
        ) : session.data ? (
          <Accept token={token} email={session.data.person.email} />
        ) : (
          <SignUpWith token={token} here={here} />
        )}
      </Page>
    </AuthLayout>
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
      navigate(`/orgs/${encodeURIComponent(data.id)}/settings`, { replace: true });
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

function SignUpWith({ token, here }: { token: string; here: string }) {
  const navigate = useNavigate();
  const form = useRef<HTMLFormElement>(null);
  const signup = useSignup((session) => {
    const joined = session.orgs[0];
    navigate(joined ? `/orgs/${encodeURIComponent(joined.id)}/settings` : '/', { replace: true });
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
        account? <Link to={`/login?next=${encodeURIComponent(here)}`}>Log in to accept it</Link>.
      </p>
      <form ref={form} onSubmit={submit} noValidate className="card">
        <SignupFields error={signup.error} withOrg={false} />
        <button type="submit" className="primary" disabled={signup.isPending}>
          {signup.isPending ? 'Signing up…' : 'Sign up and join'}
        </button>
      </form>
    </>
  );
}
