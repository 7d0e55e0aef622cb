import type { RequestRow } from '../api/types.ts';

/**
 * Who made a request (spec 000: "the key that made it"): its key's name and prefix, or a deleted
 * key; or, sent from the Playground with a session, the person who sent it. A Playground request
 * logged before people were named has neither.
 */
export function MadeBy({ request }: { request: Pick<RequestRow, 'key' | 'person'> }) {
  const { key, person } = request;
  if (key)
    return (
      <>
        {key.name ?? 'a deleted key'} {key.prefix && <code>{key.prefix}…</code>}
      </>
    );
  if (!person) return <span className="muted">Playground</span>;
  return <>Playground · {personName(person)}</>;
}

/** The person by name; the API names nobody once they left the org. */
export function personName(person: NonNullable<RequestRow['person']>): string {
  return person.name ?? 'someone no longer in the org';
}
