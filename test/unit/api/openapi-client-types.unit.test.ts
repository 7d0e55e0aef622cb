import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { clientTypes, clientTypesPaths, openapiDocument } from '../../../infra/openapi-client-types.ts';

// @orrery/sandbox's `client.client` (issue 14, item 1) and the dashboard's calls (issue 15, item 3)
// are typed from committed files generated from the API's /openapi.json. When a route or schema
// changes, this fails until the files are regenerated with `npm run openapi:client` and committed
// with the change.

it('the committed client types are those of the API document as it is now', async () => {
  const document = await openapiDocument();
  // The document is the whole API: a sandbox route and another surface's.
  expect(document.paths?.['/api/sandboxes/{id}/desktop/input']).toHaveProperty('post');
  expect(document.paths?.['/api/me']).toHaveProperty('get');
  // The dashboard's own routes are not in it (api/dashboard/plugin.ts hides them).
  expect(Object.keys(document.paths ?? {}).filter((path) => !path.startsWith('/api/'))).toEqual([]);
  const current = await clientTypes(document);
  expect(current.length).toBeGreaterThan(10_000);
  for (const path of clientTypesPaths) {
    const committed = readFileSync(path, 'utf8');
    expect(committed === current, `${path} is stale: run \`npm run openapi:client\``).toBe(true);
  }
}, 30_000);
