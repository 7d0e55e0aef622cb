import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { clientTypes, clientTypesPath, openapiDocument } from '../../../infra/openapi-client-types.ts';

// @orrery/sandbox's `client.client` is typed from a committed file generated from the API's
// /openapi.json (issue 14, item 1). When a route or schema changes, this fails until the file is
// regenerated with `npm run openapi:client` and committed with the change.

it('the committed client types are those of the API document as it is now', async () => {
  const document = await openapiDocument();
  // The document is the whole API: a sandbox route and another surface's.
  expect(document.paths?.['/api/sandboxes/{id}/desktop/input']).toHaveProperty('post');
  expect(document.paths?.['/api/me']).toHaveProperty('get');
  const committed = readFileSync(clientTypesPath, 'utf8');
  const current = await clientTypes(document);
  expect(current.length).toBeGreaterThan(10_000);
  expect(
    committed === current,
    'packages/sandbox/src/openapi.generated.ts is stale: run `npm run openapi:client`',
  ).toBe(true);
}, 30_000);
