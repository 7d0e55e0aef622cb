import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, dataOf } from '../api/client.ts';
import type { DeviceLogin, Membership } from '../api/types.ts';
import {
  ErrorPanel,
  FormError,
  fieldErrors,
  Loading,
  Page,
  SelectField,
  TextField,
  useFocusOnError,
  When,
} from '../components.tsx';
import { orgPath } from '../paths.ts';
import { useSession } from '../session.tsx';
import { AuthLayout } from './auth-layout.tsx';

// /device, the command-line login's page (RFC 8628): the terminal shows a code and this page's
// address (`?code=` filled in, or typed here); a person logged in checks the code, picks the org
// the tool's key belongs to, and approves or denies. The tool then collects its key itself.

const loginKey = (code: string) => ['device-login', code] as const;

export function DevicePage() {
  const [search, setSearch] = useSearchParams();
  const code = search.get('code')?.trim() ?? '';
  const session = useSession().data;
  const orgs = session?.orgs ?? [];
  const login = useQuery({
    queryKey: loginKey(code),
    queryFn: () => dataOf(api.GET('/api/auth/device/{userCode}', { params: { path: { userCode: code } } })),
    enabled: code !== '',
    retry: false,
  });
  const decide = useDecision(code);
  const codeError = fieldErrors(login.error ?? decide.error, ['userCode']).of('userCode');

  return (
    <AuthLayout>
      <Page title="Log in a command-line tool">
        {session && (
          <p className="lead">
            You are logged in as {session.person.name} ({session.person.email}).
          </p>
        )}
        <CodeForm code={code} error={codeError} onCode={(typed) => setSearch({ code: typed })} />
        {login.isLoading && <Loading what="the login" />}
        {login.isError && !codeError && <ErrorPanel error={login.error} />}
        {login.data && (
          <LoginPanel login={login.data.data} orgs={orgs} decide={decide} codeError={Boolean(codeError)} />
        )}
      </Page>
    </AuthLayout>
  );
}

function CodeForm({ code, error, onCode }: { code: string; error?: string; onCode: (code: string) => void }) {
  const [typed, setTyped] = useState(code);
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => setTyped(code), [code]);
  useFocusOnError(form, error, 'userCode');
  function submit(event: FormEvent) {
    event.preventDefault();
    onCode(typed.trim().toUpperCase());
  }
  return (
    <form ref={form} onSubmit={submit} noValidate className="card">
      <TextField
        label="Code shown in your terminal"
        name="userCode"
        value={typed}
        onChange={(event) => setTyped(event.target.value)}
        autoComplete="off"
        autoCapitalize="characters"
        spellCheck={false}
        hint="Eight letters, such as WDJB-MJHT."
        error={error}
      />
      <button type="submit">Look up the code</button>
    </form>
  );
}

function useDecision(code: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (decision: { approve: true; orgId: string } | { approve: false }) => {
      const params = { path: { userCode: code } };
      return decision.approve
        ? dataOf(
            api.POST('/api/auth/device/{userCode}/approve', { params, body: { org_id: decision.orgId } }),
          )
        : dataOf(api.POST('/api/auth/device/{userCode}/deny', { params }));
    },
    onSuccess: (answer) => client.setQueryData(loginKey(code), answer),
  });
}

const closed: Record<Exclude<DeviceLogin['status'], 'pending'>, string> = {
  approved: 'Approved. Go back to your terminal: it receives its key within a few seconds.',
  denied: 'Denied. Your terminal is told the login was refused; start a new one there if that was a mistake.',
  collected: 'This login is finished: the terminal already has its key.',
};

function LoginPanel({
  login,
  orgs,
  decide,
  codeError,
}: {
  login: DeviceLogin;
  orgs: Membership[];
  decide: ReturnType<typeof useDecision>;
  codeError: boolean;
}) {
  const [orgId, setOrgId] = useState(orgs[0]?.id ?? '');
  const form = useRef<HTMLFormElement>(null);
  const errors = fieldErrors(decide.error, ['org_id', 'userCode']);
  useFocusOnError(form, decide.error, errors.field === 'org_id' ? 'org_id' : undefined);
  function submit(event: FormEvent) {
    event.preventDefault();
    decide.mutate({ approve: true, orgId });
  }
  return (
    <section className="card" aria-labelledby="device-login">
      <h2 id="device-login">{login.client_name} asks to log in as you</h2>
      <p>
        Check that your terminal shows this code: <strong className="user-code">{login.user_code}</strong>
      </p>
      {login.status === 'pending' ? (
        orgs.length === 0 ? (
          <p>You belong to no org, so there is no org to give the tool a key for.</p>
        ) : (
          <form ref={form} onSubmit={submit} noValidate>
            <SelectField
              label="Org the tool gets a key for"
              name="org_id"
              value={orgId}
              onChange={setOrgId}
              error={errors.of('org_id')}
            >
              {orgs.map((org) => (
                <option key={org.id} value={org.id}>
                  {org.name}
                </option>
              ))}
            </SelectField>
            <p className="hint">
              The tool gets a new API key of that org with <code>traces:write</code> and{' '}
              <code>sandboxes:write</code>, never <code>inference:invoke</code>; it is listed under Settings,
              where you can revoke it. The code expires <When iso={login.expires_at} />.
            </p>
            {!codeError && <FormError message={errors.general} />}
            <div className="actions">
              <button type="submit" className="primary" disabled={decide.isPending}>
                Approve
              </button>
              <button
                type="button"
                onClick={() => decide.mutate({ approve: false })}
                disabled={decide.isPending}
              >
                Deny
              </button>
            </div>
          </form>
        )
      ) : (
        <p role="status" className="outcome">
          {closed[login.status]}
        </p>
      )}
      {login.status !== 'pending' && orgId && (
        <p>
          <Link to={orgPath(orgId, '/settings/keys')}>See the org's keys</Link>
        </p>
      )}
    </section>
  );
}
