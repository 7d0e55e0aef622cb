import { api, inOrgHeader } from './api/client.ts';
import { tracePageOf } from './paths.ts';

// The trace page's one large read (a trace at 001's limit is 10,000 spans), asked for by the
// page's first script, before the app's code, most of the page's bytes, has been evaluated: the
// API reads the trace while the browser runs that code. index.html loads this module first; the
// page's query (tracing/queries.ts) takes the read once instead of asking again, and asks anew
// for another trace or a later read.

function outlineRead(orgId: string, traceId: string) {
  return api.GET('/api/traces/{traceId}/outline', { params: { path: { traceId } }, ...inOrgHeader(orgId) });
}

type OutlineRead = ReturnType<typeof outlineRead>;

let early: { orgId: string; traceId: string; read: OutlineRead } | undefined;

const opened = tracePageOf(window.location.pathname);
if (opened) early = { ...opened, read: outlineRead(opened.orgId, opened.traceId) };

/** A trace's outline: the read this page started with, the first time it is asked for, else a new one. */
export function readOutline(orgId: string, traceId: string): OutlineRead {
  if (early?.orgId === orgId && early.traceId === traceId) {
    const { read } = early;
    early = undefined;
    return read;
  }
  return outlineRead(orgId, traceId);
}
