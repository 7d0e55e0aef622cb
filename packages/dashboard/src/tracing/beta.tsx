import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, dataOf } from '../api/client.ts';
import type { OrgDetail } from '../api/types.ts';
import { FormError, fieldErrors, When } from '../components.tsx';
import { tracingKeys } from './queries.ts';

// Tracing is a beta (spec 001): a member asks to join (once; asking again changes nothing) and an
// operator lets the org in with `npm run admin -- tracing enable --org <id>`.

export function JoinBeta({ org }: { org: OrgDetail }) {
  const client = useQueryClient();
  const join = useMutation({
    mutationFn: () =>
      dataOf(api.POST('/api/orgs/{orgId}/tracing/request', { params: { path: { orgId: org.id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: tracingKeys.org(org.id) }),
  });
  const requestedAt = org.tracing.requested_at;
  return (
    <section className="panel" aria-labelledby="beta-title">
      <h2 id="beta-title">Tracing is in beta</h2>
      <p>
        Send your LLM app's traces over OTLP and read them here: the span tree, each span's messages and tool
        calls, and usage, latency and error charts. An operator lets orgs in one at a time.
      </p>
      {requestedAt ? (
        <p role="status">
          {org.name} asked to join on <When iso={requestedAt} />. You will find your traces here once an
          operator has let the org in.
        </p>
      ) : (
        <>
          <FormError message={fieldErrors(join.error, []).general} />
          <button type="button" className="primary" onClick={() => join.mutate()} disabled={join.isPending}>
            {join.isPending ? 'Asking…' : 'Ask to join the beta'}
          </button>
        </>
      )}
    </section>
  );
}
