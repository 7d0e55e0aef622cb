import { Link, useParams, useSearchParams } from 'react-router';
import type { TraceItem, UserQuery, UserSession } from '../api/types.ts';
import { Facts, Loaded, Page, When } from '../components.tsx';
import { count, duration, usd } from '../format.ts';
import { Pager } from '../pager.tsx';
import { listQuery } from '../paging.ts';
import { orgPath, sessionPath, tracePath } from '../paths.ts';
import { useOrg } from '../shell.tsx';
import { Cost } from './activity.tsx';
import { useUser } from './queries.ts';

// A user: when it was first and last seen, its traces' totals, its sessions newest first (each
// to its conversation), and its newest traces, with the way to all of them in the trace list.

export function UserPage() {
  const org = useOrg();
  const userId = useParams().userId ?? '';
  const [search] = useSearchParams();
  const user = useUser(org.id, userId, listQuery<UserQuery>(search, ['cursor', 'limit']));
  return (
    <Page title={`User ${userId}`}>
      <p>
        <Link to={orgPath(org.id, '/tracing')}>Back to the traces</Link>
      </p>
      <Loaded query={user} what="the user">
        {({ data, next_cursor }) => (
          <>
            <Facts
              label="The user"
              facts={[
                ['User id', <code key="id">{data.user_id}</code>],
                ['First seen', <When key="first" iso={data.first_seen} />],
                ['Last seen', <When key="last" iso={data.last_seen} />],
                ['Traces', count(data.trace_count)],
                ['Sessions', count(data.session_count)],
                ['Tokens', `${count(data.input_tokens)} in, ${count(data.output_tokens)} out`],
                ['Cost', usd(data.total_cost_usd)],
                ['Failed spans', count(data.error_count)],
              ]}
            />
            <section aria-labelledby="sessions-title">
              <h2 id="sessions-title">Sessions</h2>
              {data.sessions.length === 0 ? (
                <p>
                  {data.session_count === 0
                    ? 'None of these traces belongs to a session.'
                    : 'No older sessions.'}
                </p>
              ) : (
                <SessionTable orgId={org.id} sessions={data.sessions} />
              )}
              <Pager label="Pages of sessions" nextCursor={next_cursor} />
            </section>
            <section aria-labelledby="latest-title">
              <h2 id="latest-title">Latest traces</h2>
              <LatestTraces orgId={org.id} traces={data.latest_traces} />
              <p>
                <Link to={orgPath(org.id, `/tracing?user_id=${encodeURIComponent(data.user_id)}`)}>
                  All {count(data.trace_count)} traces of this user in the trace list
                </Link>
              </p>
            </section>
          </>
        )}
      </Loaded>
    </Page>
  );
}

function SessionTable({ orgId, sessions }: { orgId: string; sessions: UserSession[] }) {
  return (
    <div className="table-wrap">
      <table aria-label="Sessions">
        <thead>
          <tr>
            <th scope="col">Session</th>
            <th scope="col">Started</th>
            <th scope="col">Last activity</th>
            <th scope="col">Traces</th>
            <th scope="col">Tokens in / out</th>
            <th scope="col">Cost</th>
            <th scope="col">Failed spans</th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((session) => (
            <tr key={session.session_id}>
              <th scope="row">
                {session.session_id === '' ? (
                  <span className="muted">(an empty id)</span>
                ) : (
                  <Link to={sessionPath(orgId, session.session_id)}>{session.session_id}</Link>
                )}
              </th>
              <td>
                <When iso={session.first_time} />
              </td>
              <td>
                <When iso={session.last_time} />
              </td>
              <td>{count(session.trace_count)}</td>
              <td>
                {count(session.input_tokens)} / {count(session.output_tokens)}
              </td>
              <td>
                <Cost amount={session.total_cost_usd} />
              </td>
              <td>{count(session.error_count)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function LatestTraces({ orgId, traces }: { orgId: string; traces: TraceItem[] }) {
  return (
    <div className="table-wrap">
      <table aria-label="Latest traces">
        <thead>
          <tr>
            <th scope="col">Trace</th>
            <th scope="col">Started</th>
            <th scope="col">Duration</th>
            <th scope="col">Spans</th>
            <th scope="col">Tokens in / out</th>
            <th scope="col">Cost</th>
            <th scope="col">Session</th>
          </tr>
        </thead>
        <tbody>
          {traces.map((trace) => (
            <tr key={trace.trace_id}>
              <th scope="row">
                <Link to={tracePath(orgId, trace.trace_id)}>
                  {trace.root_span_name ?? `Trace ${trace.trace_id.slice(0, 8)}… (root not received)`}
                </Link>
              </th>
              <td>
                <When iso={trace.start_time} />
              </td>
              <td>{duration(trace.duration_ms)}</td>
              <td>
                {count(trace.span_count)}
                {trace.error_count > 0 && (
                  <span className="error-badge"> {count(trace.error_count)} failed</span>
                )}
              </td>
              <td>
                {count(trace.input_tokens)} / {count(trace.output_tokens)}
              </td>
              <td>
                <Cost amount={trace.total_cost_usd} />
              </td>
              <td>
                {trace.session_id ? (
                  <Link to={sessionPath(orgId, trace.session_id)}>{trace.session_id}</Link>
                ) : (
                  <span className="muted">none</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
