import type { RequestRow } from '../api/types.ts';

/** Who made a request: its key's name and prefix, a deleted key, or the Playground. */
export function KeyOf({ request }: { request: Pick<RequestRow, 'key'> }) {
  const key = request.key;
  if (!key) return <span className="muted">Playground (no key)</span>;
  return (
    <>
      {key.name ?? 'a deleted key'} {key.prefix && <code>{key.prefix}…</code>}
    </>
  );
}
