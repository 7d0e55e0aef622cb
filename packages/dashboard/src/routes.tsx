import { createBrowserRouter, Link, Navigate, type RouteObject } from 'react-router';
import { Page } from './components.tsx';
import { AuthLayout } from './pages/auth-layout.tsx';
import { DevicePage } from './pages/device.tsx';
import { InvitationPage } from './pages/invitation.tsx';
import { LoginPage } from './pages/login.tsx';
import { NewOrgPage } from './pages/new-org.tsx';
import { SignupPage } from './pages/signup.tsx';
import { queryClient } from './query-client.ts';
import { RequireSession, sessionQuery } from './session.tsx';
import { KeysPage } from './settings/keys.tsx';
import { MembersPage } from './settings/members.tsx';
import { PricesPage } from './settings/prices.tsx';
import { SettingsPage } from './settings/settings.tsx';
import { Home, Shell } from './shell.tsx';
import { traceQuery } from './tracing/queries.ts';

// Every page's address. The API answers index.html for any path outside /api
// (api/dashboard/plugin.ts), so each of these may be opened directly or reloaded.

export const routes: RouteObject[] = [
  { path: '/login', element: <LoginPage /> },
  { path: '/signup', element: <SignupPage /> },
  // The link POST /api/orgs/:org/invitations answers (api/people/invitation-links.ts).
  { path: '/invitations/:token', element: <InvitationPage /> },
  {
    element: <RequireSession />,
    // Each loader starts its page's first read without waiting for it: the read runs beside the
    // download of the page's code instead of after it (a 10,000-span trace is megabytes).
    loader: () => {
      void queryClient.prefetchQuery(sessionQuery);
      return null;
    },
    children: [
      { path: '/', element: <Home /> },
      // The verification_uri of the command-line login (api/people/device-routes.ts).
      { path: '/device', element: <DevicePage /> },
      { path: '/new-org', element: <NewOrgPage /> },
      {
        path: '/orgs/:orgId',
        element: <Shell />,
        children: [
          { index: true, element: <Navigate to="settings" replace /> },
          // The data pages load when first opened: charts, tables and the live screen are most of
          // the code, and a person who only signs in or approves a login needs none of them.
          {
            path: 'playground',
            lazy: async () => ({ Component: (await import('./playground/playground.tsx')).PlaygroundPage }),
          },
          {
            path: 'billing',
            lazy: async () => ({ Component: (await import('./billing/billing.tsx')).BillingPage }),
          },
          {
            path: 'endpoints/requests',
            lazy: async () => ({ Component: (await import('./requests/requests.tsx')).RequestsPage }),
          },
          {
            path: 'endpoints/requests/:requestId',
            lazy: async () => ({ Component: (await import('./requests/request.tsx')).RequestPage }),
          },
          {
            path: 'tracing',
            lazy: async () => ({ Component: (await import('./tracing/tracing.tsx')).TracingPage }),
          },
          {
            path: 'tracing/traces/:traceId',
            loader: ({ params }) => {
              void queryClient.prefetchQuery(traceQuery(params.orgId ?? '', params.traceId ?? ''));
              return null;
            },
            lazy: async () => ({ Component: (await import('./tracing/trace-view.tsx')).TracePage }),
          },
          {
            path: 'tracing/sessions/:sessionId',
            lazy: async () => ({ Component: (await import('./tracing/session-view.tsx')).SessionPage }),
          },
          {
            path: 'tracing/users/:userId',
            lazy: async () => ({ Component: (await import('./tracing/user-view.tsx')).UserPage }),
          },
          {
            path: 'sandboxes',
            lazy: async () => ({ Component: (await import('./sandboxes/sandboxes.tsx')).SandboxesPage }),
          },
          {
            path: 'sandboxes/:sandboxId',
            lazy: async () => ({ Component: (await import('./sandboxes/sandbox.tsx')).SandboxPage }),
          },
          {
            path: 'templates',
            lazy: async () => ({ Component: (await import('./sandboxes/templates.tsx')).TemplatesPage }),
          },
          {
            path: 'settings',
            element: <SettingsPage />,
            children: [
              { index: true, element: <Navigate to="keys" replace /> },
              { path: 'keys', element: <KeysPage /> },
              { path: 'members', element: <MembersPage /> },
              { path: 'prices', element: <PricesPage /> },
            ],
          },
        ],
      },
    ],
  },
  { path: '*', element: <NotFound /> },
];

function NotFound() {
  return (
    <AuthLayout>
      <Page title="No such page">
        <p>
          Nothing of the dashboard lives at this address. <Link to="/">Go to your org</Link>.
        </p>
      </Page>
    </AuthLayout>
  );
}

export const router = createBrowserRouter(routes);
