import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeExportResponse, type PartialSuccess } from '../../../api/otlp/encode.ts';
import { refusalMessage } from '../../../domain/tracing/admission.ts';
import { partialSuccessOf, startChaosLoad } from '../../harness/chaos-load.ts';
import { eventually } from '../../harness/eventually.ts';
import { freePort } from '../../harness/ports.ts';

// The chaos test's OTLP load (test/harness/chaos-load.ts) counts a span as acknowledged, and so
// owed a row in `spans`, only when a 200 refused nothing. A 200 whose partial_success refused the
// export's spans (001, "Refused spans": a span ending at 2^64-1 is a bad time) once counted as
// acknowledged, and the chaos test waited 120 s for ~4,600 spans the API had refused.

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** An OTLP endpoint answering every export 200 in JSON, with what `answer` refuses of its spans. */
async function endpoint(answer: (spans: number) => PartialSuccess | undefined): Promise<string> {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString());
      const spans = body.resourceSpans
        .flatMap((rs: { scopeSpans: { spans: unknown[] }[] }) => rs.scopeSpans)
        .flatMap((ss: { spans: unknown[] }) => ss.spans).length;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(encodeExportResponse('json', answer(spans)));
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

async function runLoad(apiUrl: string) {
  const load = startChaosLoad({ apiUrl, key: 'k', model: 'm', exporters: 1, titlers: 0 });
  await eventually(async () => (load.served('otlp') >= 2 ? true : undefined), 10_000, 'two exports served');
  await load.stop(Date.now());
  return load;
}

describe('the chaos load acknowledges only the spans a 200 kept', () => {
  it('counts none of an export whose 200 refused its spans, and records the refusal as a problem', async () => {
    const load = await runLoad(
      await endpoint((n) => ({
        rejectedSpans: n,
        errorMessage: refusalMessage({ bad_time: n }, new Date()),
      })),
    );
    expect(load.sentSpans.length).toBeGreaterThanOrEqual(40);
    expect(load.acknowledgedSpans).toEqual([]);
    expect(load.refusals.length).toBeGreaterThanOrEqual(2);
    expect(load.refusals[0]).toMatchObject({
      surface: 'otlp',
      status: 200,
      problem:
        '200 with partial_success: 20 spans refused (20 spans had a start or end time past the year 2262)',
    });
  });

  it('counts every span of an export answered 200 with nothing refused', async () => {
    const load = await runLoad(await endpoint(() => undefined));
    expect(load.acknowledgedSpans).toEqual(load.sentSpans);
    expect(load.refusals).toEqual([]);
  });
});

describe('partialSuccessOf', () => {
  it.each([
    ['{}', undefined],
    ['', undefined],
    ['{"partialSuccess":{"rejectedSpans":"0","errorMessage":"a warning"}}', undefined],
    [
      '{"partialSuccess":{"rejectedSpans":"3","errorMessage":"3 spans had a start or end time past the year 2262"}}',
      '200 with partial_success: 3 spans refused (3 spans had a start or end time past the year 2262)',
    ],
    ['{"partialSuccess":{"rejectedSpans":1}}', '200 with partial_success: 1 spans refused ()'],
    ['<html>', '200 whose body is not JSON: <html>'],
  ])('%s', (text, problem) => {
    expect(partialSuccessOf(text)).toBe(problem);
  });
});
