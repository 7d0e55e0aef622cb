// The trace page at the spec's largest trace (issue 50, item 3): one trace of 10,000 spans (001's
// limit a trace; an agent's turns nested up to six levels, test/harness/large-trace.ts) sent over
// OTLP to the running platform and read back through the API, then opened in Chromium by a person
// signed up through the API. Prints how long the span tree's first row takes to show (from the
// navigation's start to the frame after it is in the page), each frame's time while the tree is
// scrolled from top to bottom a screenful a frame (p50, p95, max), and how many rows the page
// holds (virtualized: a screenful and a few, not one per span). Target: the first row within 1 s.
//   npx tsx bench/trace-page.ts [--spans 10000] [--loads 3] [--url http://127.0.0.1:8080]
// Needs `npm start` running (the stack and the API). The dashboard it serves, this checkout's
// packages/dashboard/dist, is built first when its sources changed, as `npm start` builds it.
import './quiet-logs.ts';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { createApiKey, enableTracing } from '../api/admin/commands.ts';
import { buildDashboard } from '../infra/build-dashboard.ts';
import { config } from '../platform/config.ts';
import { createPgPool } from '../platform/postgres.ts';
import { createEventProducer } from '../producers/producer.ts';
import { launchChromium } from '../test/harness/browser.ts';
import { largeAgentTrace } from '../test/harness/large-trace.ts';
import { request, responseType, toProtobuf } from '../test/harness/otlp-fixtures.ts';
import { password, uniqueEmail } from '../test/int/people/given.ts';
import { benchResource } from './analytics-traces.ts';
import { machineLine, percentile } from './machine.ts';

const { values } = parseArgs({
  options: {
    spans: { type: 'string', default: '10000' },
    loads: { type: 'string', default: '3' },
    url: { type: 'string', default: `http://127.0.0.1:${config().api.port}` },
  },
});
const spans = Number(values.spans);
const loads = Number(values.loads);
const base = values.url.replace(/\/$/, '');
const batchSize = 1000;
const targetMs = 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const thousands = (n: number) => n.toLocaleString('en-US');

if (
  !(await fetch(`${base}/readyz`).then(
    (answer) => answer.ok,
    () => false,
  ))
)
  throw new Error(`no platform answers at ${base}/readyz: start it with \`npm start\` (or pass --url)`);
const built = await buildDashboard((line) => process.stderr.write(`[dashboard] ${line}\n`));
process.stderr.write(
  `[dashboard] ${built} (the API at ${base} serves the dist/ of the checkout it runs from)\n`,
);

// In the page before its own scripts: when the span tree's first row is added, and the start of
// the frame after (it is painted by then).
const firstRowWatch = `(() => {
  const observer = new MutationObserver(() => {
    if (!document.querySelector('.span-grid tbody tr')) return;
    observer.disconnect();
    window.__rowInPage = performance.now();
    requestAnimationFrame(() => requestAnimationFrame(() => { window.__rowShown = performance.now(); }));
  });
  observer.observe(document, { childList: true, subtree: true });
})()`;

// Scrolls the tree's box a screenful each frame from top to bottom: the time between frames, the
// most rows the page held, and whether the last row (the last span) is shown at the end.
const scrollThrough = `(async () => {
  const box = document.querySelector('.span-grid-scroll');
  const rows = () => document.querySelectorAll('.span-grid tbody tr').length;
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  await frame();
  const frames = [];
  let most = rows();
  let last = performance.now();
  while (box.scrollTop + box.clientHeight < box.scrollHeight - 1) {
    box.scrollTop += box.clientHeight;
    await frame();
    const now = performance.now();
    frames.push(now - last);
    last = now;
    most = Math.max(most, rows());
  }
  await frame();
  const count = document.querySelector('.span-grid').getAttribute('aria-rowcount');
  const lastRow = document.querySelector('.span-grid tbody tr[aria-rowindex="' + count + '"]');
  const inView = lastRow !== null && lastRow.getBoundingClientRect().bottom <= box.getBoundingClientRect().bottom + 1;
  return { frames, most, step: box.clientHeight, lastShown: inView, lastSpanId: lastRow?.dataset.spanId ?? null };
})()`;

const pool = createPgPool(2);
const producer = await createEventProducer('orrery-bench');
const browser = await launchChromium((line) => process.stderr.write(`[browser] ${line}\n`));
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  // A person signed up through the API: the session cookie lands in the browser's context.
  const signup = await context.request.post(`${base}/api/auth/signup`, {
    data: { email: uniqueEmail('trace-page-bench'), password, name: 'Bench', org_name: 'trace-page bench' },
  });
  if (signup.status() !== 201) throw new Error(`sign-up: ${signup.status()} ${await signup.text()}`);
  const orgId = ((await signup.json()) as { data: { orgs: { id: string }[] } }).data.orgs[0]!.id;
  await enableTracing({ pool, producer }, orgId);
  const { key } = await createApiKey({ pool, producer }, orgId, ['traces:write'], 'trace-page bench');

  const trace = largeAgentTrace(spans);
  const sendStarted = performance.now();
  let retried = 0;
  for (let from = 0; from < trace.spans.length; from += batchSize) {
    const body = request(trace.spans.slice(from, from + batchSize));
    body.resourceSpans[0]!.resource.attributes = benchResource;
    const payload = gzipSync(toProtobuf(body));
    // The API learns of the new key and the org's beta from the org stream within moments.
    for (let attempt = 0; ; attempt += 1) {
      const answer = await fetch(`${base}/api/otlp/v1/traces`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-protobuf',
          'content-encoding': 'gzip',
          authorization: `Bearer ${key}`,
        },
        body: payload,
      });
      const bytes = Buffer.from(await answer.arrayBuffer());
      if ([401, 403, 503].includes(answer.status) && attempt < 20) {
        retried += 1;
        await sleep(500);
        continue;
      }
      if (answer.status !== 200) throw new Error(`export: ${answer.status} ${bytes.toString()}`);
      const decoded = responseType.toObject(responseType.decode(bytes), { longs: Number }) as {
        partialSuccess?: { rejectedSpans?: number; errorMessage?: string };
      };
      if (decoded.partialSuccess?.rejectedSpans)
        throw new Error(
          `export: ${decoded.partialSuccess.rejectedSpans} spans refused: ${decoded.partialSuccess.errorMessage}`,
        );
      break;
    }
  }
  const sentSeconds = (performance.now() - sendStarted) / 1000;

  // Read back whole: the count and every node of the tree.
  const nodes = (tree: { children: unknown[] }[]): number =>
    tree.reduce((sum, node) => sum + 1 + nodes(node.children as { children: unknown[] }[]), 0);
  const readTrace = async () => {
    const started = performance.now();
    const answer = await fetch(`${base}/api/traces/${trace.traceId}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const text = await answer.text();
    const ms = performance.now() - started;
    if (answer.status === 404) return { ms, bytes: text.length, whole: false };
    if (answer.status !== 200) throw new Error(`GET the trace: ${answer.status} ${text.slice(0, 300)}`);
    const data = (JSON.parse(text) as { data: { span_count: number; spans: { children: unknown[] }[] } })
      .data;
    return {
      ms,
      bytes: Buffer.byteLength(text),
      whole: data.span_count === spans && nodes(data.spans) === spans,
    };
  };
  const waitStarted = performance.now();
  while (!(await readTrace()).whole) {
    if (performance.now() - waitStarted > 180_000)
      throw new Error('the API did not answer every span in 3 minutes');
    await sleep(1000);
  }
  const readBackSeconds = (performance.now() - waitStarted) / 1000;
  const reads: Awaited<ReturnType<typeof readTrace>>[] = [];
  for (let index = 0; index < 5; index += 1) reads.push(await readTrace());
  const readMs = reads.map((read) => read.ms).sort((a, b) => a - b);
  // The outline, what the page reads.
  const outlines: { ms: number; bytes: number }[] = [];
  for (let index = 0; index < 5; index += 1) {
    const started = performance.now();
    const answer = await fetch(`${base}/api/traces/${trace.traceId}/outline`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const text = await answer.text();
    if (answer.status !== 200) throw new Error(`GET the outline: ${answer.status} ${text.slice(0, 300)}`);
    outlines.push({ ms: performance.now() - started, bytes: Buffer.byteLength(text) });
  }
  const outlineMs = outlines.map((read) => read.ms).sort((a, b) => a - b);

  const url = `${base}/orgs/${encodeURIComponent(orgId)}/tracing/traces/${trace.traceId}`;
  const firstRows: {
    shown: number;
    inPage: number;
    scripts: number | undefined;
    asked: number | undefined;
    answered: number | undefined;
  }[] = [];
  let page = await context.newPage();
  for (let load = 0; load < loads; load += 1) {
    if (load > 0) {
      await page.close();
      page = await context.newPage();
    }
    await page.addInitScript(firstRowWatch);
    await page.goto(url);
    // A function, not a string: the dashboard's CSP refuses eval, which a string predicate needs.
    await page.waitForFunction(() => (globalThis as { __rowShown?: number }).__rowShown !== undefined, null, {
      timeout: 60_000,
    });
    firstRows.push(
      (await page.evaluate(`({
        shown: window.__rowShown,
        inPage: window.__rowInPage,
        scripts: Math.max(...performance.getEntriesByType('resource')
          .filter((entry) => entry.initiatorType === 'script').map((entry) => entry.responseEnd)),
        asked: performance.getEntriesByType('resource')
          .find((entry) => entry.name.endsWith('/api/traces/${trace.traceId}/outline'))?.requestStart,
        answered: performance.getEntriesByType('resource')
          .find((entry) => entry.name.endsWith('/api/traces/${trace.traceId}/outline'))?.responseEnd,
      })`)) as (typeof firstRows)[number],
    );
  }
  const rowsAtTop = (await page.evaluate(
    `document.querySelectorAll('.span-grid tbody tr').length`,
  )) as number;
  const rowCount = (await page.evaluate(
    `document.querySelector('.span-grid').getAttribute('aria-rowcount')`,
  )) as string;
  const scrolled = (await page.evaluate(scrollThrough)) as {
    frames: number[];
    most: number;
    step: number;
    lastShown: boolean;
    lastSpanId: string | null;
  };
  const frames = [...scrolled.frames].sort((a, b) => a - b);

  const ms = (value: number | undefined) => (value === undefined ? '?' : `${value.toFixed(0)} ms`);
  const shown = firstRows.map((row) => row.shown);
  const within = shown.filter((value) => value <= targetMs).length;
  const sortedShown = [...shown].sort((a, b) => a - b);
  const target = `${within} of ${shown.length} loads within it, p50 ${ms(percentile(sortedShown, 50))}`;
  const loadsLine = firstRows.map((row, index) => `${ms(row.shown)}${index === 0 ? ' (first load)' : ''}`);
  const lastShown = scrolled.lastShown && scrolled.lastSpanId === trace.last.spanId;
  const batches = Math.ceil(spans / batchSize);
  console.log(machineLine());
  console.log(
    `trace page: one trace of ${thousands(spans)} spans (an agent's turns, nested up to ${trace.deep.depth + 1} levels), Chromium ${browser.version()} at 1400x900, ${base}`,
  );
  console.log(
    `  sent over OTLP in ${batches} requests of up to ${thousands(batchSize)} spans (protobuf, gzip; ${retried} retried) in ${sentSeconds.toFixed(1)} s; the API answered every span ${readBackSeconds.toFixed(1)} s after the last export`,
  );
  console.log(
    `  GET /api/traces/:id (${(reads[0]!.bytes / 1024 ** 2).toFixed(1)} MiB of JSON): p50 ${ms(percentile(readMs, 50))}, max ${ms(readMs.at(-1))} over ${reads.length} reads`,
  );
  console.log(
    `  GET /api/traces/:id/outline, what the page reads (${(outlines[0]!.bytes / 1024 ** 2).toFixed(1)} MiB): p50 ${ms(percentile(outlineMs, 50))}, max ${ms(outlineMs.at(-1))} over ${outlines.length} reads`,
  );
  console.log(
    `  first span row shown, from the navigation's start: ${loadsLine.join(', ')}; target ${targetMs} ms: ${target}`,
  );
  console.log(
    `    the scripts were in at ${firstRows.map((row) => ms(row.scripts)).join(', ')}; the outline was asked for at ${firstRows.map((row) => ms(row.asked)).join(', ')}`,
  );
  console.log(
    `    its answer ended at ${firstRows.map((row) => ms(row.answered)).join(', ')}; the row was in the page at ${firstRows.map((row) => ms(row.inPage)).join(', ')}`,
  );
  console.log(
    `  rows in the page: ${rowsAtTop} at the top, at most ${scrolled.most} while scrolling, of ${thousands(spans)} spans (aria-rowcount ${rowCount}, the header's row included)`,
  );
  console.log(
    `  scrolling the tree from top to bottom, ${scrolled.step} px a frame (${frames.length} frames): frame p50 ${percentile(frames, 50).toFixed(1)} ms, p95 ${percentile(frames, 95).toFixed(1)} ms, max ${(frames.at(-1) ?? Number.NaN).toFixed(1)} ms; the last span shown at the end: ${lastShown ? 'yes' : 'no'}`,
  );
} finally {
  await browser.close();
  await producer.disconnect();
  await pool.end();
}
