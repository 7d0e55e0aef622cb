import { useState } from 'react';
import { Link } from 'react-router';
import type { Sandbox } from '../api/types.ts';
import { Loaded, Page, When } from '../components.tsx';
import { useOrg } from '../shell.tsx';
import { useSandboxes } from './queries.ts';

// Sandboxes (spec 002): the org's sandboxes, newest first, with their status, metadata and whether
// their desktop runs. Programs create them with a key; a sandbox's page shows its live screen.

export function SandboxesPage() {
  const org = useOrg();
  const [all, setAll] = useState(false);
  const sandboxes = useSandboxes(org.id, all);
  return (
    <Page title="Sandboxes">
      <p className="lead">
        Programs create sandboxes with a key that has <code>sandboxes:write</code> (the{' '}
        <code>@orrery/sandbox</code> package). Open one to watch or control its desktop.
      </p>
      <div className="checkbox">
        <input
          type="checkbox"
          id="sandboxes-all"
          checked={all}
          onChange={(event) => setAll(event.target.checked)}
        />
        <label htmlFor="sandboxes-all">Show deleted sandboxes too</label>
      </div>
      <Loaded
        query={sandboxes}
        what="the sandboxes"
        empty={<p>This org has no sandboxes{all ? '' : ' running or stopped'}.</p>}
      >
        {(data) => <SandboxTable sandboxes={data} />}
      </Loaded>
    </Page>
  );
}

export function MetadataList({ metadata }: { metadata: Record<string, string> }) {
  const entries = Object.entries(metadata);
  if (entries.length === 0) return <span className="muted">none</span>;
  return (
    <ul className="metadata">
      {entries.map(([key, value]) => (
        <li key={key}>
          <code>
            {key}={value}
          </code>
        </li>
      ))}
    </ul>
  );
}

function SandboxTable({ sandboxes }: { sandboxes: Sandbox[] }) {
  return (
    <div className="table-wrap">
      <table aria-label="Sandboxes">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col">Size</th>
            <th scope="col">Desktop</th>
            <th scope="col">Metadata</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {sandboxes.map((sandbox) => (
            <tr key={sandbox.id}>
              <th scope="row">
                <Link to={encodeURIComponent(sandbox.id)}>{sandbox.name}</Link>
                <div className="muted small">
                  <code>{sandbox.id}</code>
                </div>
              </th>
              <td>
                <span className={`status status-${sandbox.status}`}>{sandbox.status}</span>
              </td>
              <td>{sandbox.size}</td>
              <td>{sandbox.desktop.running ? `running, ${sandbox.desktop.size}` : 'not running'}</td>
              <td>
                <MetadataList metadata={sandbox.metadata} />
              </td>
              <td>
                <When iso={sandbox.created_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
