import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef } from 'react';
import { useNavigate } from 'react-router';
import { api, dataOf } from '../api/client.ts';
import { FormError, fieldErrors, Page, SubmitButton, TextField, useFocusOnError } from '../components.tsx';
import { orgPath } from '../paths.ts';
import { sessionKey, useSession } from '../session.tsx';
import { Frame } from '../shell.tsx';

// A new org (POST /api/orgs), the person its owner as at sign-up; reached from the org switcher.

const fields = ['name'] as const;

export function NewOrgPage() {
  const session = useSession().data!;
  const client = useQueryClient();
  const navigate = useNavigate();
  const form = useRef<HTMLFormElement>(null);
  const create = useMutation({
    mutationFn: (name: string) => dataOf(api.POST('/api/orgs', { body: { name } })),
    onSuccess: async ({ data }) => {
      // The session's orgs now include it: read them again before showing it.
      await client.invalidateQueries({ queryKey: sessionKey });
      navigate(orgPath(data.id, '/settings'));
    },
  });
  const errors = fieldErrors(create.error, fields);
  useFocusOnError(form, create.error, errors.field);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    create.mutate(String(new FormData(event.currentTarget).get('name') ?? ''));
  }
  return (
    <Frame session={session}>
      <Page title="New org">
        <p className="lead">You will be its owner. Its keys, members, credit and data are its own.</p>
        <form ref={form} onSubmit={submit} noValidate className="card">
          <TextField
            label="Org name"
            name="name"
            required
            autoComplete="organization"
            error={errors.of('name')}
          />
          <FormError message={errors.general} />
          <SubmitButton pending={create.isPending} busy="Creating…">
            Create the org
          </SubmitButton>
        </form>
      </Page>
    </Frame>
  );
}
