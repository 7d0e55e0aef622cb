import { Link, useParams } from 'react-router';
import type { Sandbox } from '../api/types.ts';
import { Facts, Loaded, Page, When } from '../components.tsx';
import { orgPath } from '../paths.ts';
import { useOrg } from '../shell.tsx';
import { DesktopControls } from './desktop.tsx';
import { NetworkForm, networkFacts } from './network.tsx';
import { useSandbox, useTemplate } from './queries.ts';
import { MetadataList } from './sandboxes.tsx';
import { LiveScreen } from './screen.tsx';

// A sandbox's page: what it is, its desktop's status, which a person starts and stops here, and
// while the desktop runs, its live screen; its network policy, which a person may change here.

export function SandboxPage() {
  const org = useOrg();
  const id = useParams().sandboxId ?? '';
  const sandbox = useSandbox(org.id, id);
  return (
    <Page title={sandbox.data ? `Sandbox ${sandbox.data.name}` : 'Sandbox'}>
      <p>
        <Link to={orgPath(org.id, '/sandboxes')}>Back to the sandboxes</Link>
      </p>
      <Loaded query={sandbox} what="the sandbox">
        {(data) => (
          <>
            <About sandbox={data} />
            <NetworkForm orgId={org.id} sandbox={data} />
            <section aria-labelledby="screen-title">
              <h2 id="screen-title">Live screen</h2>
              <DesktopControls orgId={org.id} sandbox={data} />
              {data.desktop.running ? (
                <LiveScreen orgId={org.id} sandbox={data} />
              ) : (
                <p>
                  The desktop is not running. Start it here, or a program starts it with a key (
                  <code>sandbox.desktop.start()</code>); its screen shows here once it runs.
                </p>
              )}
            </section>
          </>
        )}
      </Loaded>
    </Page>
  );
}

/** The template it was made from, by name once read (a deleted one by its id), or the base. */
function TemplateFact({ sandbox }: { sandbox: Sandbox }) {
  const org = useOrg();
  const template = useTemplate(org.id, sandbox.template);
  if (sandbox.template === null) return <span className="muted">none: the base</span>;
  return (
    <Link to={orgPath(org.id, '/templates')}>
      {template.data ? template.data.name : <code>{sandbox.template}</code>}
    </Link>
  );
}

function About({ sandbox }: { sandbox: Sandbox }) {
  const desktop = sandbox.desktop;
  return (
    <Facts
      label="The sandbox"
      facts={[
        ['Id', <code key="id">{sandbox.id}</code>],
        [
          'Status',
          <span key="status" className={`status status-${sandbox.status}`}>
            {sandbox.status}
          </span>,
        ],
        ['Size', sandbox.size],
        ['Desktop', desktop.running ? `running, ${desktop.size}, ${desktop.browser}` : 'not running'],
        ['Metadata', <MetadataList key="metadata" metadata={sandbox.metadata} />],
        ['Template', <TemplateFact key="template" sandbox={sandbox} />],
        ...networkFacts(sandbox.network),
        ['Idle timeout', `${sandbox.idle_timeout_seconds} s`],
        ['Last used', <When key="used" iso={sandbox.last_used_at} />],
        ['Created', <When key="created" iso={sandbox.created_at} />],
      ]}
    />
  );
}
