import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useRef, useState } from 'react';
import { api, dataOf } from '../api/client.ts';
import { type ApiKey, type NewApiKey, type Scope, scopeChoices } from '../api/types.ts';
import {
  ConfirmDialog,
  FormError,
  fieldErrors,
  Loaded,
  SubmitButton,
  TextField,
  useFocusOnError,
  When,
} from '../components.tsx';
import { useOrg } from '../shell.tsx';
import { orgKeys, personNamer, useKeys, usePeople } from './org-queries.ts';
import { ShownOnce } from './shown-once.tsx';

// Settings > API keys: create one with chosen scopes (its secret shown this once), list them,
// revoke one after a confirmation.

const fields = ['name', 'scopes'] as const;

export function KeysPage() {
  const org = useOrg();
  const keys = useKeys(org.id);
  const people = usePeople(org.id);
  const [created, setCreated] = useState<NewApiKey>();
  const [revoking, setRevoking] = useState<ApiKey>();
  const client = useQueryClient();
  const revoke = useMutation({
    mutationFn: (key: ApiKey) =>
      dataOf(
        api.DELETE('/api/orgs/{orgId}/keys/{keyId}', { params: { path: { orgId: org.id, keyId: key.id } } }),
      ),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: orgKeys.keys(org.id) });
      setRevoking(undefined);
    },
  });
  const nameOf = personNamer(people.data?.members);

  return (
    <>
      <CreateKey orgId={org.id} onCreated={setCreated} />
      {created && <CreatedKey created={created} onDone={() => setCreated(undefined)} />}
      <section aria-labelledby="keys-title">
        <h2 id="keys-title">Keys</h2>
        <Loaded query={keys} what="the keys" empty={<p>This org has no keys yet.</p>}>
          {(data) => (
            <KeyTable
              keys={data}
              nameOf={nameOf}
              onRevoke={(key) => {
                revoke.reset();
                setRevoking(key);
              }}
            />
          )}
        </Loaded>
      </section>
      {revoking && (
        <ConfirmDialog
          title={`Revoke the key “${revoking.name}”?`}
          confirm="Revoke the key"
          onConfirm={() => revoke.mutate(revoking)}
          onCancel={() => setRevoking(undefined)}
          pending={revoke.isPending}
          error={revoke.error}
        >
          <p>
            Programs using it get 401 within a second, and the sandbox tokens minted with it stop working.
            This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}

function CreateKey({ orgId, onCreated }: { orgId: string; onCreated: (key: NewApiKey) => void }) {
  const client = useQueryClient();
  const form = useRef<HTMLFormElement>(null);
  const scopesError = useId();
  const create = useMutation({
    mutationFn: (body: { name: string; scopes: Scope[] }) =>
      dataOf(api.POST('/api/orgs/{orgId}/keys', { params: { path: { orgId } }, body })),
    onSuccess: async ({ data }) => {
      form.current?.reset();
      onCreated(data);
      await client.invalidateQueries({ queryKey: orgKeys.keys(orgId) });
    },
  });
  const errors = fieldErrors(create.error, fields);
  useFocusOnError(form, create.error, errors.field);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    create.mutate({
      name: String(data.get('name') ?? ''),
      scopes: data.getAll('scopes').map(String) as Scope[],
    });
  }

  const scopeError = errors.of('scopes');
  return (
    <section aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <form ref={form} onSubmit={submit} noValidate className="card">
        <TextField
          label="Name"
          name="name"
          required
          autoComplete="off"
          hint="Where the key is used, such as “laptop” or “CI”."
          error={errors.of('name')}
        />
        <fieldset aria-describedby={scopeError ? scopesError : undefined}>
          <legend>Scopes</legend>
          {scopeChoices.map(({ scope, description }) => (
            <div className="checkbox" key={scope}>
              <input type="checkbox" id={`scope-${scope}`} name="scopes" value={scope} />
              <label htmlFor={`scope-${scope}`}>
                <code>{scope}</code>: {description}
              </label>
            </div>
          ))}
          {scopeError && (
            <p id={scopesError} className="field-error">
              {scopeError}
            </p>
          )}
        </fieldset>
        <FormError message={errors.general} />
        <SubmitButton pending={create.isPending} busy="Creating…">
          Create the key
        </SubmitButton>
      </form>
    </section>
  );
}

function CreatedKey({ created, onDone }: { created: NewApiKey; onDone: () => void }) {
  return (
    <ShownOnce
      titleId="created-key-title"
      title={<>Key “{created.name}” created</>}
      label="The new API key"
      value={created.key}
      note="Copy it now: it is shown this once. Only its hash is kept, so no one can show it again."
      onDone={onDone}
    />
  );
}

function KeyTable({
  keys,
  nameOf,
  onRevoke,
}: {
  keys: ApiKey[];
  nameOf: (personId: string) => string;
  onRevoke: (key: ApiKey) => void;
}) {
  // Live keys first, newest first.
  const sorted = [...keys].sort(
    (a, b) => Number(a.revoked) - Number(b.revoked) || b.created_at.localeCompare(a.created_at),
  );
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key</th>
            <th scope="col">Scopes</th>
            <th scope="col">Created</th>
            <th scope="col">By</th>
            <th scope="col">
              <span className="visually-hidden">Status or action</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((key) => (
            <tr key={key.id} className={key.revoked ? 'revoked' : undefined}>
              <th scope="row">{key.name}</th>
              <td>
                <code>{key.prefix}…</code>
              </td>
              <td>
                <ul className="scopes">
                  {key.scopes.map((scope) => (
                    <li key={scope}>
                      <code>{scope}</code>
                    </li>
                  ))}
                </ul>
              </td>
              <td>
                <When iso={key.created_at} />
              </td>
              <td>{nameOf(key.created_by)}</td>
              <td>
                {key.revoked ? (
                  'Revoked'
                ) : (
                  <button
                    type="button"
                    className="danger"
                    onClick={() => onRevoke(key)}
                    aria-label={`Revoke ${key.name}`}
                  >
                    Revoke
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
