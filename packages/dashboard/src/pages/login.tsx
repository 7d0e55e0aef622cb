import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { api, dataOf } from '../api/client.ts';
import {
  FormError,
  fieldErrors,
  Loading,
  Page,
  SubmitButton,
  TextField,
  useFocusOnError,
} from '../components.tsx';
import { safeNext } from '../paths.ts';
import { storeSession, useSession } from '../session.tsx';
import { AuthLayout } from './auth-layout.tsx';

const fields = ['email', 'password'] as const;

export function LoginPage() {
  const [search] = useSearchParams();
  const next = safeNext(search.get('next'));
  const session = useSession();
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

  if (session.isPending)
    return (
      <AuthLayout>
        <Loading what="your session" />
      </AuthLayout>
    );
  if (session.data && !login.isSuccess) return <Navigate to={next} replace />;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    login.mutate({ email: String(data.get('email')), password: String(data.get('password')) });
  }

  const signup = next === '/' ? '/signup' : `/signup?next=${encodeURIComponent(next)}`;
  return (
    <AuthLayout>
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
          No account yet? <Link to={signup}>Sign up</Link>
        </p>
      </Page>
    </AuthLayout>
  );
}
