import { NavLink, Outlet } from 'react-router';
import { Page } from '../components.tsx';
import { useOrg } from '../shell.tsx';

/** Settings: the org's API keys, its members and invitations, and its model prices, each a page of its own. */
export function SettingsPage() {
  const org = useOrg();
  return (
    <Page title="Settings">
      <p className="lead">
        {org.name}: you are {org.role === 'owner' ? 'an owner' : 'a member'}.
      </p>
      <nav aria-label="Settings" className="tabs">
        <ul>
          <li>
            <NavLink to="keys">API keys</NavLink>
          </li>
          <li>
            <NavLink to="members">Members</NavLink>
          </li>
          <li>
            <NavLink to="prices">Prices</NavLink>
          </li>
        </ul>
      </nav>
      <Outlet context={org} />
    </Page>
  );
}
