import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createOrg, enableTracing, grantCredit } from '../../../api/admin/commands.ts';
import { type ClickHouseClient, createClickHouse } from '../../../platform/clickhouse.ts';
import { expectKeptExactlyOnce } from '../../harness/chaos-kept.ts';
import { type ChaosLoad, startChaosLoad } from '../../harness/chaos-load.ts';
import { callWithKey, type FleetProcess, startFleet, type TestFleet } from '../../harness/fleet.ts';
import { type ModelServer, startModelServer } from '../../harness/model-server.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';

// API replicas behind a load balancer (issue 47): OTLP exports, titles and sandbox calls sent to
// two API processes in turn, as a round-robin balancer sends them, and one replica killed with -9
// under that load. The other keeps serving all three; clients resend what went unanswered to the
// next replica (an exporter the same body, a title client the same Idempotency-Key), and in the
// end every acknowledged span is stored once and every answered title billed once.

const log = (line: string) => process.stderr.write(`[replicas] ${line}\n`);
const inputTokens = 12;
let platform: TestPlatform;
let clickhouse: ClickHouseClient;
let model: ModelServer;
let fleet: TestFleet;
let orgId: string;
let key: string;

beforeAll(async () => {
  model = await startModelServer(() => ({
    line: 'Password reset help',
    usage: { input: inputTokens, output: 4 },
  }));
  platform = await startTestPlatform();
  clickhouse = createClickHouse();
  fleet = await startFleet({
    apis: 2,
    hosts: 1,
    environment: {
      ORRERY_MODELS: JSON.stringify([{ name: 'replicas', writes: ['titles'], baseUrl: model.baseUrl }]),
    },
  });
  orgId = (await createOrg(platform.admin, 'Replicas')).orgId;
  await enableTracing(platform.admin, orgId);
  await grantCredit(platform.admin, orgId, 10_000_000, 'replica kill');
  key = (await createApiKey(platform.admin, orgId, ['traces:write', 'inference:invoke', 'sandboxes:write']))
    .key;
  // Each replica folds the org stream itself: both must know the key and the credit first.
  for (const api of fleet.apis)
    await eventually(
      async () => {
        const summary = await callWithKey(api, key, 'GET', '/api/billing/summary');
        if (summary.status !== 200) return undefined;
        const { data } = (await summary.json()) as { data: { balance_cents: number } };
        return data.balance_cents > 0 ? true : undefined;
      },
      30_000,
      `${api.name} to know the key and its credit`,
    );
}, 600_000);

afterAll(async () => {
  await fleet?.stop();
  await Promise.all([platform?.stop(), clickhouse?.close(), model?.close()]);
}, 120_000);

/** exec calls on one sandbox through the replicas in turn, each sent again to the next one that answers. */
function sandboxLoad(sandboxId: string, apis: FleetProcess[]) {
  let stopping = false;
  let served = 0;
  const wrong: string[] = [];
  let turn = 0;
  const run = (async () => {
    while (!stopping) {
      for (;;) {
        const api = apis[turn++ % apis.length]!;
        const answer = await callWithKey(api, key, 'POST', `/api/sandboxes/${sandboxId}/exec`, {
          command: 'echo alive',
        }).catch(() => undefined);
        if (answer?.status === 200) {
          served += 1;
          break;
        }
        if (answer) wrong.push(`${answer.status}: ${await answer.text()}`);
      }
    }
  })();
  return {
    served: () => served,
    wrong,
    async stop() {
      stopping = true;
      await run;
    },
  };
}

describe('two API replicas under OTLP, title and sandbox load', () => {
  it('keep serving when one is killed -9: every acknowledged span stored once, every answered title billed once', async () => {
    const [doomed, survivor] = fleet.apis as [FleetProcess, FleetProcess];
    const sandbox = (await (await callWithKey(survivor, key, 'POST', '/api/sandboxes', {})).json()) as {
      data: { id: string };
    };
    const load: ChaosLoad = startChaosLoad({
      apiUrl: fleet.apis.map((api) => api.url),
      key,
      model: 'replicas',
      exporters: 2,
      titlers: 2,
    });
    const execs = sandboxLoad(sandbox.data.id, fleet.apis);
    const servedAll = async (count: number, what: string) => {
      const from = { otlp: load.served('otlp'), title: load.served('title'), exec: execs.served() };
      await eventually(
        async () =>
          load.served('otlp') >= from.otlp + count &&
          load.served('title') >= from.title + count &&
          execs.served() >= from.exec + count
            ? true
            : undefined,
        60_000,
        what,
      );
    };
    await servedAll(5, 'the three loads served by both replicas');
    const killedAt = Date.now();
    await doomed.kill();
    await servedAll(20, 'the three loads served by the replica left');
    log(`served again ${Date.now() - killedAt} ms after the kill`);
    await load.stop(Date.now() + 30_000);
    await execs.stop();

    // Unanswered requests were sent again to the other replica; nothing else but a 503 was met.
    const wrong = load.refusals.filter((met) => met.problem !== undefined && met.status !== 0);
    expect(wrong).toEqual([]);
    expect(execs.wrong).toEqual([]);
    log(
      `served ${load.served('otlp')} exports, ${load.served('title')} titles, ${execs.served()} execs; ` +
        `${load.refusals.filter((met) => met.status === 0).length} unanswered and sent again`,
    );
    await expectKeptExactlyOnce({ load, clickhouse, pool: platform.pool, orgId, inputTokens, log });
    await doomed.start();
  }, 300_000);
});
