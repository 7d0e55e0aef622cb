import { describe, expect, it } from 'vitest';
import { type LogRow, namedPeople, requestItem } from '../../../api/inference/requests-list.ts';
import type { OrgState } from '../../../domain/orgs/org.ts';
import type { PgPool } from '../../../platform/postgres.ts';

// Who made a request of the log (issue 50, item 4): its key, named from the org's keys, or the
// person whose dashboard session sent it, named from the people read model while a member.

const row = (over: Partial<LogRow>): LogRow => ({
  request_id: 'req_1',
  occurred_at_ms: '1763805600123',
  key_id: '',
  person_id: '',
  model: 'scribe',
  endpoint: 'titles',
  input_tokens: '120',
  output_tokens: '5',
  fallback: 0,
  latency_ms: 6.69,
  ...over,
});

const keys: OrgState['keys'] = {
  key_1: {
    keyId: 'key_1',
    name: 'ci-bot',
    keyHash: 'h',
    keyPrefix: 'ork_ab12',
    scopes: ['inference:invoke'],
    revoked: false,
    createdAt: new Date(0),
    createdBy: '',
  },
};
const members: OrgState['members'] = {
  person_ada: { personId: 'person_ada', role: 'owner', addedAt: new Date(0) },
  person_new: { personId: 'person_new', role: 'member', addedAt: new Date(0) },
};
const ada = { name: 'Ada', email: 'ada@example.com' };

/** A pool that answers the people query with the people asked for among `known`, noting each ask. */
function peoplePool(known: Record<string, { name: string; email: string }>) {
  const asked: string[][] = [];
  const pool = {
    query: async (_text: string, [ids]: [string[]]) => {
      asked.push([...ids].sort());
      const rows = ids
        .filter((id) => Object.hasOwn(known, id))
        .map((id) => ({ person_id: id, ...known[id], password_hash: '', signed_up_at: new Date(0) }));
      return { rows };
    },
  } as unknown as PgPool;
  return { pool, asked };
}

describe('who made a request of the log', () => {
  it("names a key's request by its key, and no person", () => {
    const item = requestItem(row({ key_id: 'key_1' }), keys, new Map());
    expect(item.key).toEqual({ id: 'key_1', name: 'ci-bot', prefix: 'ork_ab12' });
    expect(item.person).toBeNull();
  });

  it('names a Playground request by its person, and no key; never by their email', () => {
    const item = requestItem(row({ person_id: 'person_ada' }), keys, new Map([['person_ada', ada]]));
    expect(item.key).toBeNull();
    expect(item.person).toEqual({ id: 'person_ada', name: 'Ada' });
  });

  it('keeps the id of a person it cannot name, as of a key the org does not hold', () => {
    expect(requestItem(row({ person_id: 'person_gone' }), keys, new Map()).person).toEqual({
      id: 'person_gone',
      name: null,
    });
    expect(requestItem(row({ key_id: 'key_gone' }), keys, new Map()).key).toEqual({
      id: 'key_gone',
      name: null,
      prefix: null,
    });
  });

  it('reads nobody for a page without a Playground request', async () => {
    const { pool, asked } = peoplePool({});
    expect(await namedPeople(pool, members, [row({ key_id: 'key_1' })])).toEqual(new Map());
    expect(asked).toEqual([]);
  });

  it('reads each member once for the page, and not a person who left the org', async () => {
    const { pool, asked } = peoplePool({ person_ada: ada, person_gone: { name: 'Gone', email: 'g@x.y' } });
    const rows = ['person_ada', 'person_gone', 'person_ada', 'person_new', ''].map((id, index) =>
      row({ request_id: `req_${index}`, person_id: id }),
    );
    const people = await namedPeople(pool, members, rows);
    expect(asked).toEqual([['person_ada', 'person_new']]);
    expect(rows.map((one) => requestItem(one, keys, people).person)).toEqual([
      { id: 'person_ada', name: 'Ada' },
      { id: 'person_gone', name: null },
      { id: 'person_ada', name: 'Ada' },
      // A member the people read model does not show yet.
      { id: 'person_new', name: null },
      null,
    ]);
  });
});
