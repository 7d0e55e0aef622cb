import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, dataOf, inOrgHeader } from '../api/client.ts';
import { Facts, Loaded, Page, When } from '../components.tsx';
import { count, duration, fractionOfCents } from '../format.ts';
import { orgPath } from '../paths.ts';
import { useOrg } from '../shell.tsx';
import { MadeBy } from './made-by.tsx';

// One request of Endpoints > Requests, opened from its row: who made it, the model and endpoint,
// the tokens, the model's time, whether the fallback answered, what it cost and its id, which is
// the answer's `x-request-id`.

export function RequestPage() {
  const org = useOrg();
  const requestId = useParams().requestId ?? '';
  const request = useQuery({
    queryKey: ['orgs', org.id, 'request', requestId],
    queryFn: () =>
      dataOf(
        api.GET('/api/inference/requests/{requestId}', {
          params: { path: { requestId } },
          ...inOrgHeader(org.id),
        }),
      ),
  });
  return (
    <Page title="Request">
      <p>
        <Link to={orgPath(org.id, '/endpoints/requests')}>Back to the requests</Link>
      </p>
      <Loaded query={request} what="the request">
        {(data) => (
          <Facts
            label="The request"
            facts={[
              ['Request id', <code key="id">{data.id}</code>],
              ['When', <When key="when" iso={data.created_at} />],
              ['Made by', <MadeBy key="made-by" request={data} />],
              ['Model', data.model],
              ['Endpoint', <code key="endpoint">/v1/{data.endpoint}</code>],
              ['Input tokens', count(data.input_tokens)],
              ['Output tokens', count(data.output_tokens)],
              ["Model's time", duration(data.latency_ms)],
              [
                'Fallback',
                data.fallback
                  ? "Yes: the model's line failed a check, so the text was built from the input"
                  : "No: the model's own line",
              ],
              ['Cost', `${fractionOfCents(data.cost_cents)} (before the day's rounding to a cent)`],
            ]}
          />
        )}
      </Loaded>
    </Page>
  );
}
