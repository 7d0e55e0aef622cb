// The request bodies of the title and preview endpoints (spec 000, "Resources and their fields":
// Message, Title request body, Preview request body, Item, Item for agent_action), and this
// surface's words for the first zod issue of a 422 invalid_request (the one parser of every
// surface, with its `param`, is domain/params.ts).
//
// Unknown fields are refused, like Stripe and like OpenAI's top-level parameters: a misspelt
// optional field (`reeder`, `recipient`) would otherwise be ignored silently and change the line
// the model writes. Refusing is also the direction that can be relaxed later without breaking
// a caller; the reverse cannot.
import { z } from 'zod';
import {
  describeType,
  type Issue,
  type ParseResult,
  parseRequest,
  quoteList,
  type Wording,
} from '../params.ts';

export const roles = ['user', 'assistant'] as const;
export type Role = (typeof roles)[number];

export const previewKinds = ['email', 'message', 'ticket', 'issue', 'event', 'doc', 'agent_action'] as const;
export type PreviewKind = (typeof previewKinds)[number];

/** Every kind except `agent_action`: items with headers, a body and a thread. */
export const documentKinds = ['email', 'message', 'ticket', 'issue', 'event', 'doc'] as const;
export type DocumentKind = (typeof documentKinds)[number];

export const message = z
  .strictObject({
    content: z.string(),
    role: z.enum(roles).optional(),
    name: z.string().optional(),
  })
  // A blank name names nobody, so it does not count as the speaker.
  .refine((m) => m.role !== undefined || (m.name ?? '').trim() !== '', {
    path: ['role'],
    message: 'a message needs `role` (`user` or `assistant`), `name`, or both',
  });
export type Message = z.infer<typeof message>;

export const titleRequest = z.strictObject({
  // An empty chat has nothing to title, so at least one message is required.
  messages: z.array(message).min(1),
});
export type TitleRequest = z.infer<typeof titleRequest>;

const optionalText = z.string().optional();

export const item = z.strictObject({
  subject: optionalText,
  title: optionalText,
  channel: optionalText,
  status: optionalText,
  when: optionalText,
  where: optionalText,
  from: optionalText,
  to: optionalText,
  cc: optionalText,
  date: optionalText,
  body: optionalText,
  thread: z.array(message).optional(),
});
export type Item = z.infer<typeof item>;

export const agentActionItem = z.strictObject({
  // An empty tool name would make the fallback read `Running …`.
  tool: z.string().min(1),
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).optional(),
  // A union rather than .nullable(), so a wrong type is reported as `a string or null`.
  result: z.union([z.string(), z.null()]).optional(),
  context: optionalText,
});
export type AgentActionItem = z.infer<typeof agentActionItem>;

const previewCommon = {
  reader: optionalText,
  language: z.literal('English').optional(),
};

export const previewRequest = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.enum(documentKinds), item, ...previewCommon }),
  z.strictObject({ kind: z.literal('agent_action'), item: agentActionItem, ...previewCommon }),
]);
export type PreviewRequest = z.infer<typeof previewRequest>;
export type DocumentPreviewRequest = Extract<PreviewRequest, { kind: DocumentKind }>;
export type AgentActionPreviewRequest = Extract<PreviewRequest, { kind: 'agent_action' }>;

/**
 * Parses a request body. On failure, `param` is the path of the first offending field in the
 * spec's notation (`messages[0].content`, `item.tool`, `language`; empty for the body itself)
 * and `message` says what to send instead.
 */
export function parseInferenceBody<S extends z.ZodType>(schema: S, body: unknown): ParseResult<z.output<S>> {
  return parseRequest(schema, body, inferenceWording);
}

const inferenceWording: Wording = {
  body: 'Send a JSON object as the body.',
  issue: (issue, { param, value }) => issueMessage(issue, param, value),
};

/** Expected types of a union's alternatives, e.g. `an object or a string`. */
function unionExpected(errors: readonly (readonly Issue[])[]): string {
  const expected = errors.flatMap((alt) =>
    alt.flatMap((i) => (i.code === 'invalid_type' ? [i.expected] : [])),
  );
  return [...new Set(expected)].map(describeType).join(' or ');
}

function issueMessage(issue: Issue, param: string, value: unknown): string {
  const field = `\`${param}\``;
  if (param === '') return 'Send a JSON object as the body.';
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return `${field} is required: send it as ${describeType(issue.expected)}.`;
      return `${field} must be ${describeType(issue.expected)}${value === null ? ', not null' : ''}.`;
    case 'invalid_value':
      return `${field} must be ${issue.values.length === 1 ? '' : 'one of '}${quoteList(issue.values)}.`;
    case 'invalid_union':
      if (issue.discriminator !== undefined && 'options' in issue && issue.options !== undefined)
        return value === undefined
          ? `${field} is required: send one of ${quoteList(issue.options)}.`
          : `${field} must be one of ${quoteList(issue.options)}.`;
      return `${field} must be ${unionExpected(issue.errors)}.`;
    case 'unrecognized_keys':
      return `${field} is not a field of this request: remove it, or check its spelling.`;
    case 'too_small': // every minimum in these schemas is 1
      return `${field} must not be empty.`;
    case 'custom':
      return `${field}: ${issue.message}.`;
    default:
      return `${field} is not valid: ${issue.message}.`;
  }
}
