import type { ReactNode } from 'react';
import { Page } from '../components.tsx';

// The pages the navigation already names but that are not built yet (issue 15, item 3): each
// says what it will show and how to get at it through the API meanwhile. No made-up data.

export interface Planned {
  title: string;
  /** What the page will let a person do, after "Here you will". */
  will: string;
  /** The API's way to the same thing today. */
  meanwhile: ReactNode;
}

export const planned = {
  playground: {
    title: 'Playground',
    will: 'pick a model, build a title or preview request of any kind, send it, and see the answer, whether it fell back, its usage, its latency and what it costs.',
    meanwhile: (
      <>
        Create a key with <code>inference:invoke</code> under Settings and send{' '}
        <code>POST /api/inference/&lt;model&gt;/v1/titles</code> or <code>…/previews</code> with it.
      </>
    ),
  },
  billing: {
    title: 'Billing',
    will: 'see your balance and credit, the charges by model and UTC day, and a chart of the last 30 days.',
    meanwhile: (
      <>
        <code>GET /api/billing/summary</code> with one of the org's keys.
      </>
    ),
  },
  requests: {
    title: 'Requests',
    will: "page through the request log of the title and preview endpoints with its filters, each request's key and the model's time.",
    meanwhile: (
      <>
        <code>GET /api/inference/requests</code> with a key that has <code>inference:invoke</code>.
      </>
    ),
  },
  tracing: {
    title: 'Tracing',
    will: 'ask to join the tracing beta, then search the trace list with its filters, read each trace as a span tree beside its timeline, and see analytics charts.',
    meanwhile: (
      <>
        Traces go in over OTLP (<code>POST /api/otlp/v1/traces</code>) and come out of{' '}
        <code>GET /api/traces</code>, with a key that has <code>traces:write</code>, once an operator has
        enabled tracing for the org.
      </>
    ),
  },
  sandboxes: {
    title: 'Sandboxes',
    will: "see the org's sandboxes with their status and metadata, and watch or control each one's live screen.",
    meanwhile: (
      <>
        The <code>@orrery/sandbox</code> package, or <code>/api/sandboxes</code> with a key that has{' '}
        <code>sandboxes:write</code>.
      </>
    ),
  },
} as const satisfies Record<string, Planned>;

export function NotBuilt({ page }: { page: Planned }) {
  return (
    <Page title={page.title}>
      <div className="panel">
        <p>
          <strong>This page is not built yet.</strong> Here you will {page.will}
        </p>
        <p>
          Meanwhile: {page.meanwhile} The API's routes are listed in <a href="/openapi.json">/openapi.json</a>
          .
        </p>
      </div>
    </Page>
  );
}
