// A user's integration test, as a project that installed @orrery/testcontainers writes it: start
// Orrery, send a trace over OTLP/JSON, read it back, stop. Prints what it saw as one JSON line.
import { randomBytes } from 'node:crypto';
import { OrreryContainer } from '@orrery/testcontainers';

const orrery = await new OrreryContainer().withApiKey('ingest', ['traces:write']).start();
try {
  const traceId = randomBytes(16).toString('hex');
  const now = BigInt(Date.now()) * 1_000_000n;
  const sent = await fetch(`${orrery.apiUrl}/api/otlp/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${orrery.apiKey('ingest').key}` },
    body: JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'user-app' } }] },
          scopeSpans: [
            {
              scope: { name: 'user-test' },
              spans: [
                {
                  traceId,
                  spanId: randomBytes(8).toString('hex'),
                  name: 'handle request',
                  kind: 2,
                  startTimeUnixNano: String(now - 2_000_000n),
                  endTimeUnixNano: String(now),
                },
              ],
            },
          ],
        },
      ],
    }),
  });
  const trace = await orrery.waitForTrace(traceId);
  process.stdout.write(
    `${JSON.stringify({
      status: sent.status,
      spans: trace.data.spans.map((span) => ({ name: span.name, service: span.service })),
    })}\n`,
  );
} finally {
  await orrery.stop();
}
