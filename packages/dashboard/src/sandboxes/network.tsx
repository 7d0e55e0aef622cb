import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useRef } from 'react';
import { api, dataOf, inOrgHeader } from '../api/client.ts';
import type { Egress, NetworkPolicy, Sandbox } from '../api/types.ts';
import {
  FormError,
  failureFrom,
  fieldErrors,
  SelectField,
  SubmitButton,
  TextAreaField,
  useFocusOnError,
} from '../components.tsx';
import { sandboxKey } from './queries.ts';

// A sandbox's network policy (issue 48): what its page shows of it, and the form that changes it
// (PATCH /api/sandboxes/:id with `network`, which replaces the whole policy). The lists are one
// entry a line; the API judges each entry and names the one at fault (`network.allow[3]`), which
// the form shows at its field as the line it is.

const fields = ['network.egress', 'network.allow', 'network.deny'] as const;

const egressWords: Record<Egress, string> = {
  open: 'open: the internet',
  none: 'none: loopback only',
};

const neverReached =
  'Never reachable, whatever the policy: the host, private networks, link-local addresses (cloud metadata) and other sandboxes.';

function RuleList({ rules, empty }: { rules: string[]; empty: string }) {
  if (rules.length === 0) return <span className="muted">{empty}</span>;
  return (
    <ul className="metadata">
      {rules.map((rule) => (
        <li key={rule}>
          <code>{rule}</code>
        </li>
      ))}
    </ul>
  );
}

/** The facts of the policy, for the sandbox's facts list. */
export function networkFacts(network: NetworkPolicy): [string, ReactNode][] {
  if (network.egress === 'none') return [['Network', egressWords.none]];
  return [
    ['Network', egressWords.open],
    ['Allowed', <RuleList key="allow" rules={network.allow} empty="everything not denied" />],
    ['Denied', <RuleList key="deny" rules={network.deny} empty="nothing beyond what no sandbox reaches" />],
  ];
}

const lines = (text: FormDataEntryValue | null) =>
  String(text ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

/** The API's message for an entry of a list (`network.allow[3]`), said as the form's line. */
function asLine(param: string | undefined, message: string | undefined): string | undefined {
  const index = /\[(\d+)\]$/.exec(param ?? '')?.[1];
  if (message === undefined || index === undefined) return message;
  return `Line ${Number(index) + 1}: ${message}`;
}

export function NetworkForm({ orgId, sandbox }: { orgId: string; sandbox: Sandbox }) {
  const client = useQueryClient();
  const form = useRef<HTMLFormElement>(null);
  const save = useMutation({
    mutationFn: (network: NetworkPolicy) =>
      dataOf(
        api.PATCH('/api/sandboxes/{id}', {
          params: { path: { id: sandbox.id } },
          body: { network },
          ...inOrgHeader(orgId),
        }),
      ),
    onSuccess: ({ data }) => client.setQueryData(sandboxKey(orgId, sandbox.id), data),
  });
  const errors = fieldErrors(save.error, fields);
  useFocusOnError(form, save.error, errors.field);
  const param = save.error ? failureFrom(save.error).param : undefined;
  const network = sandbox.network;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    save.mutate({
      egress: String(data.get('network.egress')) as Egress,
      allow: lines(data.get('network.allow')),
      deny: lines(data.get('network.deny')),
    });
  }

  return (
    <section aria-labelledby="network-title">
      <h2 id="network-title">Network</h2>
      {/* Drawn again with the policy as it now is, once saved or changed elsewhere. */}
      <form ref={form} onSubmit={submit} noValidate className="card" key={JSON.stringify(network)}>
        <SelectField
          label="Egress"
          name="network.egress"
          defaultValue={network.egress}
          hint={neverReached}
          error={errors.of('network.egress')}
        >
          {(['open', 'none'] as const).map((egress) => (
            <option key={egress} value={egress}>
              {egressWords[egress]}
            </option>
          ))}
        </SelectField>
        <TextAreaField
          label="Allow"
          name="network.allow"
          rows={3}
          defaultValue={network.allow.join('\n')}
          hint="One CIDR or host name a line. When any is given, only these are reachable (egress open only)."
          error={asLine(param, errors.of('network.allow'))}
        />
        <TextAreaField
          label="Deny"
          name="network.deny"
          rows={3}
          defaultValue={network.deny.join('\n')}
          hint="One CIDR or host name a line, never reachable. Host names are resolved when the policy is applied."
          error={asLine(param, errors.of('network.deny'))}
        />
        <FormError message={errors.general} />
        <SubmitButton pending={save.isPending} busy="Saving…">
          Save the network policy
        </SubmitButton>
        {save.isSuccess && (
          <p role="status" className="muted">
            Saved: the sandbox has this policy now.
          </p>
        )}
      </form>
    </section>
  );
}
