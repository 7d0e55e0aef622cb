import { Loaded, Page } from '../components.tsx';
import { useOrg } from '../shell.tsx';
import { Analytics } from './analytics.tsx';
import { JoinBeta } from './beta.tsx';
import { useOrgDetail } from './queries.ts';
import { TraceList } from './trace-list.tsx';

// Tracing (spec 001): until an operator lets the org into the beta, the way to ask; then the trace
// list with its search and filters, and the analytics.

export function TracingPage() {
  const org = useOrg();
  const detail = useOrgDetail(org.id);
  return (
    <Page title="Tracing">
      <Loaded query={detail} what="the org">
        {(data) =>
          data.tracing.enabled ? (
            <>
              <TraceList orgId={org.id} />
              <Analytics orgId={org.id} />
            </>
          ) : (
            <JoinBeta org={data} />
          )
        }
      </Loaded>
    </Page>
  );
}
