import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, dataOf } from '../api/client.ts';
import type { Session } from '../api/types.ts';
import { FormError, fieldErrors, Page, SubmitButton, TextField, useFocusOnError } from '../components.tsx';
import { loginPath, safeNext } from '../paths.ts';
import { storeSession } from '../session.tsx';
import { LoggedOutLayout } from './auth-layout.tsx';

const fields = ['name', 'email', 'password', 'org_name'] as const;

export interface SignupBody {
  name: string;
  email: string;
  password: string;
  org_name?: string;
  invitation?: string;
}

/** POST /api/auth/signup: the person, their org (or the invited one), and a session. */
export function useSignup(then: (session: Session) => void) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: SignupBody) => dataOf(api.POST('/api/auth/signup', { body })),
    onSuccess: ({ data }) => {
      storeSession(client, data);
      then(data);
    },
  });
}

/** The fields of a sign-up, empty ones left out (the API names the org itself then). */
export function signupBody(form: HTMLFormElement, invitation?: string): SignupBody {
  const data = new FormData(form);
  const text = (name: string) => String(data.get(name) ?? '');
  const orgName = text('org_name').trim();
  return {
    name: text('name'),
    email: text('email'),
    password: text('password'),
    ...(orgName ? { org_name: orgName } : {}),
    ...(invitation ? { invitation } : {}),
  };
}

/** The person's fields of a sign-up; the org's name only when they make an org of their own. */
export function SignupFields({
  error,
  withOrg,
  email,
}: {
  error: unknown;
  withOrg: boolean;
  /** Filled in already: the email an invitation was made for. */
  email?: string;
}) {
  const errors = fieldErrors(error, fields);
  return (
    <>
      <TextField label="Your name" name="name" autoComplete="name" required error={errors.of('name')} />
      <TextField
        label="Email"
        name="email"
        type="email"
        autoComplete="email"
        required
        defaultValue={email}
        error={errors.of('email')}
      />
      <TextField
        label="Password"
        name="password"
        type="password"
        autoComplete="new-password"
        required
        hint="At least 10 characters."
        error={errors.of('password')}
      />
      {withOrg && (
        <TextField
          label="Org name (optional)"
          name="org_name"
          autoComplete="organization"
          hint="Left empty, your org is called after you. You are its owner."
          error={errors.of('org_name')}
        />
      )}
      <FormError message={errors.general} />
    </>
  );
}

export function SignupPage() {
  const [search] = useSearchParams();
  const next = safeNext(search.get('next'));
  const navigate = useNavigate();
  const form = useRef<HTMLFormElement>(null);
  const signup = useSignup(() => navigate(next, { replace: true }));
  useFocusOnError(form, signup.error, fieldErrors(signup.error, fields).field);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    signup.mutate(signupBody(event.currentTarget));
  }

  return (
    <LoggedOutLayout next={next} justIn={signup.isSuccess}>
      <Page title="Sign up">
        <form ref={form} onSubmit={submit} noValidate className="card">
          <SignupFields error={signup.error} withOrg />
          <SubmitButton pending={signup.isPending} busy="Signing up…">
            Sign up
          </SubmitButton>
        </form>
        <p>
          Have an account? <Link to={loginPath(next)}>Log in</Link>
        </p>
      </Page>
    </LoggedOutLayout>
  );
}
