import { type ReactNode, useEffect, useRef } from 'react';
import { Link, Navigate, NavLink, Outlet, useLocation, useOutletContext, useParams } from 'react-router';
import type { Membership, Session } from './api/types.ts';
import { Page } from './components.tsx';
import { inOrg, orgPath } from './paths.ts';
import { useLogout, useSession } from './session.tsx';

// The app's frame around an org's pages (/orgs/:orgId/…): the header with the org switcher and
// the person, the navigation to every page the dashboard will have, and the page itself.

const lastOrgKey = 'orrery.lastOrg';

/** The org `/` opens: the one last shown, if the person still belongs to it, else their first. */
function homeOrg(session: Session): Membership | undefined {
  const last = localStorage.getItem(lastOrgKey);
  return session.orgs.find((org) => org.id === last) ?? session.orgs[0];
}

/** `/`: the home org's Settings, or a word on having no org. */
export function Home() {
  const session = useSession().data!;
  const org = homeOrg(session);
  if (org) return <Navigate to={orgPath(org.id, '/settings')} replace />;
  return (
    <Frame session={session}>
      <NoOrg />
    </Frame>
  );
}

/** The org of the page, for the pages inside the shell. */
export function useOrg(): Membership {
  return useOutletContext<Membership>();
}

export function Shell() {
  const session = useSession().data!;
  const orgId = useParams().orgId ?? '';
  const org = session.orgs.find((candidate) => candidate.id === orgId);
  useEffect(() => {
    if (org) localStorage.setItem(lastOrgKey, org.id);
  }, [org]);
  return (
    <Frame session={session} org={org}>
      {org ? <Outlet context={org} /> : <NotYourOrg orgs={session.orgs} />}
    </Frame>
  );
}

export function Frame({
  session,
  org,
  children,
}: {
  session: Session;
  org?: Membership;
  children: ReactNode;
}) {
  const logout = useLogout();
  return (
    <div className="app">
      <a href="#main" className="skip-link">
        Skip to the page
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          Orrery
        </Link>
        <OrgSwitcher orgs={session.orgs} current={org} />
        <div className="person">
          <span className="person-name" title={session.person.email}>
            {session.person.name}
          </span>
          <button type="button" onClick={() => logout.mutate()} disabled={logout.isPending}>
            Log out
          </button>
        </div>
      </header>
      <div className="body">
        {org && <MainNav org={org} />}
        <main id="main" tabIndex={-1}>
          {children}
        </main>
      </div>
    </div>
  );
}

/**
 * The org switcher: a disclosure (<details>) with a link to the same page in each of the person's
 * orgs. Links, not a <select> that navigates as its value changes, so arrowing through the
 * choices moves nothing until one is chosen.
 */
function OrgSwitcher({ orgs, current }: { orgs: Membership[]; current?: Membership }) {
  const location = useLocation();
  const details = useRef<HTMLDetailsElement>(null);
  // Closed again once a choice took the person to another page.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each navigation, on purpose
  useEffect(() => {
    if (details.current) details.current.open = false;
  }, [location.pathname]);
  return (
    <details className="org-switcher" ref={details}>
      <summary>
        <span className="visually-hidden">Org: </span>
        {current ? current.name : 'Choose an org'}
        {current && <span className="role"> ({current.role})</span>}
      </summary>
      <nav aria-label="Your orgs">
        <ul>
          {orgs.map((org) => (
            <li key={org.id}>
              <Link
                to={inOrg(location.pathname, org.id)}
                aria-current={org.id === current?.id ? 'true' : undefined}
              >
                {org.name} <span className="role">({org.role})</span>
              </Link>
            </li>
          ))}
          <li className="new-org">
            <Link to="/new-org">New org…</Link>
          </li>
        </ul>
      </nav>
    </details>
  );
}

/** Every page of an org, built or not, in the order the issue names them. */
function MainNav({ org }: { org: Membership }) {
  const base = orgPath(org.id);
  return (
    <nav aria-label="Main" className="sidenav">
      <ul>
        <li>
          <NavLink to={`${base}/playground`}>Playground</NavLink>
        </li>
        <li>
          <NavLink to={`${base}/billing`}>Billing</NavLink>
        </li>
        <li>
          <span className="nav-group" id="nav-endpoints">
            Endpoints
          </span>
          <ul aria-labelledby="nav-endpoints" className="subnav">
            <li>
              <NavLink to={`${base}/endpoints/requests`}>Requests</NavLink>
            </li>
          </ul>
        </li>
        <li>
          <NavLink to={`${base}/tracing`}>Tracing</NavLink>
        </li>
        <li>
          <NavLink to={`${base}/sandboxes`}>Sandboxes</NavLink>
        </li>
        <li>
          <NavLink to={`${base}/templates`}>Templates</NavLink>
        </li>
        <li>
          <NavLink to={`${base}/settings`}>Settings</NavLink>
        </li>
      </ul>
    </nav>
  );
}

function NotYourOrg({ orgs }: { orgs: Membership[] }) {
  if (orgs.length === 0) return <NoOrg />;
  return (
    <Page title="Not one of your orgs">
      <div className="panel">
        <p>You are not a member of this org (any more). Your orgs:</p>
        <ul>
          {orgs.map((org) => (
            <li key={org.id}>
              <Link to={orgPath(org.id, '/settings')}>{org.name}</Link>
            </li>
          ))}
        </ul>
      </div>
    </Page>
  );
}

function NoOrg() {
  return (
    <Page title="You belong to no org">
      <div className="panel">
        <p>
          You are not a member of any org now. Open an invitation link from an org's owner to join one, or{' '}
          <Link to="/new-org">make a new org</Link> of your own.
        </p>
      </div>
    </Page>
  );
}
