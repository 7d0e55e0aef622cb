import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, dataOf } from '../api/client.ts';
import { FormError, fieldErrors, Page, SubmitButton, TextField, useFocusOnError } from '../components.tsx';
import { safeNext, signupPath } from '../paths.ts';
import { storeSession } from '../session.tsx';
import { LoggedOutLayout } from './auth-layout.tsx';

const fields = ['email', 'password'] as const;

export function LoginPage() {
  const [search] = useSearchParams();
  const next = safeNext(search.get('next'));
  const client = useQueryClient();
  const navigate = useNavigate();
  const form = useRef<HTMLFormElement>(null);
  const login = useMutation({
    mutationFn: (body: { email: string; password: string }) => dataOf(api.POST('/api/auth/login', { body })),
    onSuccess: ({ data }) => {
      storeSession(client, data);
      navigate(next, { replace: true });
    },
  });
  const errors = fieldErrors(login.error, fields);
  useFocusOnError(form, login.error, errors.field);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    login.mutate({ email: String(data.get('email')), password: String(data.get('password')) });
  }

  return (
    <LoggedOutLayout next={next} justIn={login.isSuccess}>
      <Page title="Log in">
        {next !== '/' && <p className="lead">Log in to continue where you were.</p>}
        <form ref={form} onSubmit={submit} noValidate className="card">
          <TextField
            label="Email"
            name="email"
            type="email"
            autoComplete="email"
            required
            error={errors.of('email')}
          />
          <TextField
            label="Password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            error={errors.of('password')}
          />
          <FormError message={errors.general} />
          <SubmitButton pending={login.isPending} busy="Logging in…">
            Log in
          </SubmitButton>
        </form>
        <p>
          No account yet? <Link to={signupPath(next)}>Sign up</Link>
        </p>
      </Page>
    </LoggedOutLayout>
  );
}
