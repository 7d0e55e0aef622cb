import { z } from 'zod';
import { decodeSessionCursor, decodeTraceCursor } from '../../domain/tracing/queries-cursor.ts';
import { spanKinds } from '../../domain/tracing/span.ts';

// The query surface's query strings and answers (snake_case on the wire). Query strings are parsed
// here, once: times become Dates, the cursor becomes a keyset, analytics ranges get their defaults
// and their bound. A failed parse is a 422 `invalid_request` naming the parameter (api/errors.ts).

const dayMs = 24 * 60 * 60 * 1000;
/** Analytics scan every span of the range: a month at most, the spans' retention (001, Limits). */
export const maxAnalyticsRangeDays = 31;
export const defaultAnalyticsRangeDays = 7;

const isoTime = z.iso
  .datetime({ offset: true, error: 'expected an ISO 8601 time such as 2026-01-31T00:00:00Z' })
  .transform((text) => new Date(text));

const filterText = (what: string) =>
  z.string().min(1, `give a non-empty ${what}`).max(8192, `a ${what} is at most 8,192 characters`);

const cursorOf = <Cursor>(decode: (text: string) => Cursor | undefined) =>
  z.string().transform((text, context) => {
    const decoded = decode(text);
    if (decoded) return decoded;
    context.addIssue({
      code: 'custom',
      message: 'not a cursor this API returned (pass next_cursor unchanged)',
    });
    return z.NEVER;
  });

const cursor = cursorOf(decodeTraceCursor);

/** A page's size: a whole number from 1 to `max`. */
const pageLimit = (max: number, byDefault: number) => {
  const message = `expected a whole number from 1 to ${max}`;
  return z.coerce
    .number({ error: message })
    .int(message)
    .min(1, message)
    .max(max, message)
    .default(byDefault);
};

export const traceListQuery = z
  .object({
    from: isoTime.optional().describe('Traces that started at or after this time.'),
    to: isoTime.optional().describe('Traces that started before this time.'),
    session_id: filterText('session id').optional(),
    user_id: filterText('user id').optional(),
    service: filterText('service').optional(),
    environment: filterText('environment').optional(),
    model: filterText('model').optional().describe('Traces with at least one span of this model.'),
    kind: z.enum(spanKinds).optional().describe('Traces with at least one span of this kind.'),
    name: filterText('name')
      .optional()
      .describe('Traces with a span whose name contains this text, ignoring case.'),
    limit: pageLimit(100, 50),
    cursor: cursor.optional().describe('next_cursor of the previous page.'),
  })
  .refine((query) => !query.from || !query.to || query.from < query.to, {
    path: ['to'],
    message: 'to must be after from',
  });

export type TraceListQuery = z.output<typeof traceListQuery>;

export const analyticsQuery = z
  .object({
    from: isoTime.optional().describe(`Default: ${defaultAnalyticsRangeDays} days before to.`),
    to: isoTime.optional().describe('Default: now.'),
  })
  .transform(({ from, to }) => {
    const end = to ?? new Date();
    return { from: from ?? new Date(end.getTime() - defaultAnalyticsRangeDays * dayMs), to: end };
  })
  .refine((range) => range.from < range.to, { path: ['to'], message: 'to must be after from' })
  .refine((range) => range.to.getTime() - range.from.getTime() <= maxAnalyticsRangeDays * dayMs, {
    path: ['from'],
    message: `the range from..to is at most ${maxAnalyticsRangeDays} days`,
  });

export type AnalyticsRange = z.output<typeof analyticsQuery>;

export const traceParams = z.object({ traceId: z.string().min(1).max(64) });
export const spanParams = traceParams.extend({ spanId: z.string().min(1).max(64) });

const times = {
  start_time: z.string().describe('ISO 8601, millisecond precision.'),
  end_time: z.string(),
  start_time_unix_nano: z.string().describe('Exact, as a decimal string.'),
  end_time_unix_nano: z.string(),
  duration_ms: z.number(),
};

const context = {
  session_id: z.string().nullable(),
  user_id: z.string().nullable(),
  service: z.string().nullable(),
  environment: z.string().nullable(),
};

export const traceItem = z.object({
  trace_id: z.string(),
  root_span_name: z.string().nullable().describe('Null while the root span has not arrived.'),
  ...times,
  span_count: z.number().int(),
  error_count: z.number().int(),
  input_tokens: z.number().int().describe('Over generation spans only (001, Trace-level values).'),
  output_tokens: z.number().int(),
  total_cost_usd: z
    .number()
    .nullable()
    .describe(
      'USD over the generation spans that have a cost (`cost_usd`); null when none has one. A span is priced when received.',
    ),
  ...context,
  models: z.array(z.string()),
});

export type TraceItem = z.infer<typeof traceItem>;

export const traceListAnswer = z.object({ data: z.array(traceItem), next_cursor: z.string().nullable() });

const spanHead = {
  span_id: z.string(),
  parent_span_id: z.string().nullable(),
  name: z.string(),
  kind: z.enum(spanKinds),
  otel_kind: z.number().int(),
  ...times,
  status_code: z.number().int(),
  status_message: z.string(),
  model: z.string().nullable(),
  input_tokens: z.number().int().nullable(),
  output_tokens: z.number().int().nullable(),
  cached_input_tokens: z
    .number()
    .int()
    .nullable()
    .describe('Input tokens read from a cache: part of `input_tokens`.'),
  reasoning_tokens: z
    .number()
    .int()
    .nullable()
    .describe('Output tokens spent reasoning: part of `output_tokens`.'),
  cost_usd: z
    .number()
    .nullable()
    .describe(
      "A generation's cost in USD at its org's prices (`GET /api/prices`) when it was received: a price changed later applies to spans received after the change. Null for other kinds and for a model without a price, never 0 for want of one.",
    ),
  ...context,
  input_truncated: z.boolean(),
  output_truncated: z.boolean(),
  redacted_count: z.number().int(),
};

// Children have this node's shape. OpenAPI gets them as plain objects: the route schemas cannot
// carry a recursive component here, and a dangling $ref would be worse.
export const spanNode = z.object({
  ...spanHead,
  children: z.array(z.unknown()).describe('Child spans, each shaped like this span node.'),
});

export type SpanNodeAnswer = Omit<z.infer<typeof spanNode>, 'children'> & { children: SpanNodeAnswer[] };

export const traceAnswer = z.object({ data: traceItem.extend({ spans: z.array(spanNode) }) });

/** A span node as the trace view's tree draws it: `GET /api/traces/{traceId}/spans/{spanId}` has the rest. */
export const spanOutlineNode = z.object({
  span_id: spanHead.span_id,
  name: spanHead.name,
  kind: spanHead.kind,
  start_time_unix_nano: times.start_time_unix_nano,
  end_time_unix_nano: times.end_time_unix_nano,
  duration_ms: times.duration_ms,
  status_code: spanHead.status_code,
  model: spanHead.model,
  children: z.array(z.unknown()).describe('Child spans, each shaped like this node.'),
});

export type SpanOutlineAnswer = Omit<z.infer<typeof spanOutlineNode>, 'children'> & {
  children: SpanOutlineAnswer[];
};

export const traceOutlineAnswer = z.object({
  data: traceItem.extend({ spans: z.array(spanOutlineNode) }),
});

export const spanAnswer = z.object({
  data: z.object({
    trace_id: z.string(),
    ...spanHead,
    trace_first_received_at: z.string(),
    input: z.unknown().describe('`{ messages: [...] }` or `{ value: ... }`, or null.'),
    output: z.unknown(),
    attributes: z.record(z.string(), z.unknown()),
    events: z.array(z.unknown()),
    links: z.array(z.unknown()),
    resource_attributes: z.record(z.string(), z.unknown()),
    scope_name: z.string(),
    scope_version: z.string(),
  }),
});

// A session and a user (issue 50, item 2): their values added up over their traces, each trace in
// the session and for the user its own trace-level values name (001, "Trace-level values").

/** A path parameter is at most 100 characters (Fastify's limit, 414 beyond it). */
export const sessionParams = z.object({
  sessionId: z.string().min(1).describe("The session id the trace's spans carried (`session.id`, …)."),
});
export const userParams = z.object({
  userId: z.string().min(1).describe("The user id the trace's spans carried (`user.id`, …)."),
});

/** A session's traces per page, at most: each brings its input and output messages. */
export const maxSessionPage = 50;
/** A user's newest traces, shown beside its sessions. */
export const latestTraceCount = 10;

export const sessionQuery = z.object({
  limit: pageLimit(maxSessionPage, 20).describe('Traces per page.'),
  cursor: cursor.optional().describe('next_cursor of the previous page.'),
});

export const userQuery = z.object({
  limit: pageLimit(100, 20).describe('Sessions per page.'),
  cursor: cursorOf(decodeSessionCursor).optional().describe('next_cursor of the previous page.'),
});

export type SessionQuery = z.output<typeof sessionQuery>;
export type UserQuery = z.output<typeof userQuery>;

const activity = {
  trace_count: z.number().int(),
  error_count: z.number().int().describe('Error spans (status code 2) over the traces.'),
  input_tokens: z.number().int().describe('Over generation spans only (001, Trace-level values).'),
  output_tokens: z.number().int(),
  total_cost_usd: z
    .number()
    .nullable()
    .describe('USD over the traces that have a cost (`total_cost_usd`); null when none has one.'),
};

const turnSide = z
  .object({
    span_id: z.string().describe('The span it is read from: `GET /api/traces/{traceId}/spans/{spanId}`.'),
    source: z
      .enum(['generation', 'root'])
      .describe("A generation's, or the root span's when no generation of the trace stored one."),
    content: z.unknown().describe('As stored: `{ messages: [...] }` or `{ value: ... }`.'),
    truncated: z.boolean().describe('Cut to the stored limit (001, Limits).'),
  })
  .nullable();

export const sessionTrace = traceItem.extend({
  input: turnSide.describe(
    "The turn's input: the first generation's (by start) that stored one, else the root span's; null when neither did.",
  ),
  output: turnSide.describe(
    "The turn's output: the last generation's (by start) that stored one, else the root span's; null when neither did.",
  ),
});

export type SessionTrace = z.infer<typeof sessionTrace>;

export const sessionAnswer = z.object({
  data: z.object({
    session_id: z.string(),
    first_time: z.string().describe('The earliest start of its traces, ISO 8601, millisecond precision.'),
    last_time: z.string().describe('The latest end of its traces.'),
    ...activity,
    user_ids: z.array(z.string()).describe('The users of its traces, each trace its own (001), sorted.'),
    traces: z
      .array(sessionTrace)
      .describe('A page of its traces in the order they started (start, then trace id): the conversation.'),
  }),
  next_cursor: z.string().nullable(),
});

export const userSession = z.object({
  session_id: z.string(),
  first_time: z.string(),
  last_time: z.string(),
  ...activity,
});

export const userAnswer = z.object({
  data: z.object({
    user_id: z.string(),
    first_seen: z.string().describe('The earliest start of its traces, ISO 8601, millisecond precision.'),
    last_seen: z.string().describe('The latest end of its traces.'),
    ...activity,
    session_count: z.number().int().describe('Sessions of its traces; a trace may have none.'),
    sessions: z
      .array(userSession)
      .describe(
        "A page of its sessions, newest activity (latest end) first, each over the user's traces in it.",
      ),
    latest_traces: z
      .array(traceItem)
      .describe(
        `Its ${latestTraceCount} newest traces, newest first; \`GET /api/traces?user_id=\` pages them all.`,
      ),
  }),
  next_cursor: z.string().nullable().describe('The next page of its sessions.'),
});

const range = { from: z.string(), to: z.string() };

export const usageAnswer = z.object({
  ...range,
  data: z.array(
    z.object({
      day: z.string().describe('UTC day of the spans’ start, YYYY-MM-DD.'),
      model: z.string(),
      spans: z.number().int().describe('Spans of this model, of any kind.'),
      input_tokens: z.number().int().describe('Over generation spans only.'),
      output_tokens: z.number().int(),
      cost_usd: z
        .number()
        .nullable()
        .describe("Over this model's generation spans that have a cost; null when none has one."),
    }),
  ),
});

export const latencyAnswer = z.object({
  ...range,
  data: z.array(
    z.object({
      kind: z.enum(spanKinds),
      spans: z.number().int(),
      p50_ms: z.number(),
      p90_ms: z.number(),
      p99_ms: z.number(),
    }),
  ),
});

export const errorsAnswer = z.object({
  ...range,
  data: z.array(
    z.object({
      day: z.string(),
      kind: z.enum(spanKinds),
      spans: z.number().int(),
      errors: z.number().int().describe('Spans with status code 2 (error).'),
    }),
  ),
});
