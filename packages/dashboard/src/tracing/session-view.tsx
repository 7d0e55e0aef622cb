import { Link, useParams, useSearchParams } from 'react-router';
import type { SessionQuery, SessionTurn, TurnSide } from '../api/types.ts';
import { Facts, Loaded, Page, When } from '../components.tsx';
import { count, duration, usd } from '../format.ts';
import { Pager } from '../pager.tsx';
import { listQuery } from '../paging.ts';
import { orgPath, tracePath, userPath } from '../paths.ts';
import { useOrg } from '../shell.tsx';
import { Cost, failedSpans } from './activity.tsx';
import { InputOutput } from './messages.tsx';
import { useSession } from './queries.ts';
import { splitInput } from './turns.ts';

// A session as the conversation it is: its totals, then its traces in the order they started, each
// a turn with the messages it was sent and answered (its first generation's input, its last
// generation's output, or the root span's), its tokens, cost and failures, and the way to the
// trace. A page of turns at a time, the cursor in the address.

export function SessionPage() {
  const org = useOrg();
  const sessionId = useParams().sessionId ?? '';
  const [search] = useSearchParams();
  const session = useSession(org.id, sessionId, listQuery<SessionQuery>(search, ['cursor', 'limit']));
  return (
    <Page title={`Session ${sessionId}`}>
      <p>
        <Link to={orgPath(org.id, '/tracing')}>Back to the traces</Link>
      </p>
      <Loaded query={session} what="the session">
        {({ data, next_cursor }) => (
          <>
            <Facts
              label="The session"
              facts={[
                ['Session id', <code key="id">{data.session_id}</code>],
                ['Started', <When key="first" iso={data.first_time} />],
                ['Last activity', <When key="last" iso={data.last_time} />],
                ['Traces', count(data.trace_count)],
                ['Tokens', `${count(data.input_tokens)} in, ${count(data.output_tokens)} out`],
                ['Cost', usd(data.total_cost_usd)],
                ['Failed spans', count(data.error_count)],
                [
                  data.user_ids.length === 1 ? 'User' : 'Users',
                  data.user_ids.length === 0 ? (
                    'none'
                  ) : (
                    <ul key="users" className="inline-list">
                      {data.user_ids.map((userId) => (
                        <li key={userId}>
                          {userId === '' ? (
                            <span className="muted">(an empty id)</span>
                          ) : (
                            <Link to={userPath(org.id, userId)}>{userId}</Link>
                          )}
                        </li>
                      ))}
                    </ul>
                  ),
                ],
              ]}
            />
            <section aria-labelledby="conversation-title">
              <h2 id="conversation-title">Conversation</h2>
              {data.traces.length === 0 ? (
                <p>No later traces in this session.</p>
              ) : (
                <ol className="turns">
                  {data.traces.map((trace) => (
                    <Turn key={trace.trace_id} orgId={org.id} trace={trace} />
                  ))}
                </ol>
              )}
              <Pager
                label="Pages of the conversation"
                nextCursor={next_cursor}
                back="Earlier traces"
                on="Later traces"
              />
            </section>
          </>
        )}
      </Loaded>
    </Page>
  );
}

function Turn({ orgId, trace }: { orgId: string; trace: SessionTurn }) {
  const headingId = `turn-${trace.trace_id}`;
  const name = trace.root_span_name ?? `Trace ${trace.trace_id.slice(0, 8)}… (root not received)`;
  return (
    <li className="turn card">
      <article aria-labelledby={headingId}>
        <h3 id={headingId}>
          <Link to={tracePath(orgId, trace.trace_id)}>{name}</Link>
        </h3>
        <p className="turn-figures">
          <When iso={trace.start_time} /> · {duration(trace.duration_ms)} · {count(trace.input_tokens)} in,{' '}
          {count(trace.output_tokens)} out tokens · <Cost amount={trace.total_cost_usd} />
          {trace.error_count > 0 && <span className="error-badge"> {failedSpans(trace.error_count)}</span>}
          {trace.models.length > 0 && <span className="muted"> · {trace.models.join(', ')}</span>}
        </p>
        <TurnInput orgId={orgId} traceId={trace.trace_id} side={trace.input} />
        <TurnOutput orgId={orgId} traceId={trace.trace_id} side={trace.output} />
      </article>
    </li>
  );
}

/** Where a side of the turn was read, with the way to its span in the trace. */
function Source({
  orgId,
  traceId,
  side,
  what,
}: {
  orgId: string;
  traceId: string;
  side: TurnSide;
  what: string;
}) {
  const span = `${tracePath(orgId, traceId)}?span=${encodeURIComponent(side.span_id)}`;
  return (
    <p className="muted small">
      <Link to={span}>
        {side.source === 'generation' ? `From its ${what} generation` : 'From its root span'}
        <span className="visually-hidden"> (the span in the trace)</span>
      </Link>
    </p>
  );
}

function TurnInput({ orgId, traceId, side }: { orgId: string; traceId: string; side: TurnSide | null }) {
  if (!side)
    return (
      <>
        <h4>Input</h4>
        <p className="muted">None sent.</p>
      </>
    );
  const { latest, earlier } = splitInput(side.content);
  return (
    <>
      <h4>Input</h4>
      <Source orgId={orgId} traceId={traceId} side={side} what="first" />
      {earlier.length > 0 && (
        <details className="earlier">
          <summary>
            The {count(earlier.length)} earlier message{earlier.length === 1 ? '' : 's'} it was sent
          </summary>
          <InputOutput io={{ messages: earlier }} truncated={false} />
        </details>
      )}
      <InputOutput io={latest} truncated={side.truncated} />
    </>
  );
}

function TurnOutput({ orgId, traceId, side }: { orgId: string; traceId: string; side: TurnSide | null }) {
  return (
    <>
      <h4>Output</h4>
      {side ? (
        <>
          <Source orgId={orgId} traceId={traceId} side={side} what="last" />
          <InputOutput io={side.content} truncated={side.truncated} />
        </>
      ) : (
        <p className="muted">None sent.</p>
      )}
    </>
  );
}
