import { useState } from 'react';
import type { PreviewBody, TitleBody } from '../api/types.ts';
import { SelectField, TextAreaField, TextField } from '../components.tsx';

// The Playground's request builders: a title's chat (messages, oldest first) and a preview's item
// for every `kind` (spec 000, Resources and their fields). Each input is named by the API's own
// `param` (`messages[0].content`, `item.tool`), so a refusal's message lands at its field.

type ErrorOf = (name: string) => string | undefined;

export const previewKinds = ['email', 'message', 'ticket', 'issue', 'event', 'doc', 'agent_action'] as const;
export type PreviewKind = (typeof previewKinds)[number];

/** The item fields offered for a document kind, in the order the spec renders them. */
const documentFields = [
  ['subject', 'Subject'],
  ['title', 'Title'],
  ['channel', 'Channel'],
  ['status', 'Status'],
  ['from', 'From'],
  ['to', 'To'],
  ['date', 'Date'],
] as const;

/** The field names a title form has, most specific first (`fieldOf` takes the first match). */
export function titleFieldNames(messages: number): string[] {
  const names = ['model'];
  for (let i = 0; i < messages; i += 1) names.push(`messages[${i}].role`, `messages[${i}].content`);
  return [...names, 'messages'];
}

export function previewFieldNames(kind: PreviewKind): string[] {
  const item =
    kind === 'agent_action'
      ? ['item.tool', 'item.arguments', 'item.result', 'item.context']
      : [...documentFields.map(([name]) => `item.${name}`), 'item.body'];
  return ['model', 'kind', 'reader', ...item, 'item'];
}

export function TitleFields({ errorOf, onCount }: { errorOf: ErrorOf; onCount: (n: number) => void }) {
  const [ids, setIds] = useState([0, 1]);
  const change = (next: number[]) => {
    setIds(next);
    onCount(next.length);
  };
  return (
    <fieldset>
      <legend>The chat, oldest message first</legend>
      {ids.map((id, index) => (
        <div className="message-row" key={id}>
          <SelectField
            label={`Message ${index + 1}: role`}
            name={`messages[${index}].role`}
            defaultValue={index % 2 === 0 ? 'user' : 'assistant'}
            error={errorOf(`messages[${index}].role`)}
          >
            <option value="user">user</option>
            <option value="assistant">assistant</option>
          </SelectField>
          <TextAreaField
            label={`Message ${index + 1}: content`}
            name={`messages[${index}].content`}
            rows={2}
            defaultValue={index === 0 ? 'Can you help me plan a three-day trip to Lisbon in May?' : ''}
            error={errorOf(`messages[${index}].content`)}
          />
          {ids.length > 1 && (
            <button type="button" onClick={() => change(ids.filter((other) => other !== id))}>
              Remove message {index + 1}
            </button>
          )}
        </div>
      ))}
      <button type="button" onClick={() => change([...ids, Math.max(...ids) + 1])}>
        Add a message
      </button>
    </fieldset>
  );
}

export function PreviewFields({ kind, errorOf }: { kind: PreviewKind; errorOf: ErrorOf }) {
  return (
    <fieldset>
      <legend>The item</legend>
      <TextField
        label="Reader (optional)"
        name="reader"
        hint="The viewer's name: marked “(you)” wherever it appears."
        error={errorOf('reader')}
      />
      {kind === 'agent_action' ? (
        <>
          <TextField
            label="Tool"
            name="item.tool"
            defaultValue="search_flights"
            error={errorOf('item.tool')}
          />
          <TextAreaField
            label="Arguments (JSON or text, optional)"
            name="item.arguments"
            rows={2}
            defaultValue='{"from": "LHR", "to": "LIS"}'
            error={errorOf('item.arguments')}
          />
          <TextAreaField
            label="Result (optional: empty means still running)"
            name="item.result"
            rows={2}
            error={errorOf('item.result')}
          />
          <TextField label="Context (optional)" name="item.context" error={errorOf('item.context')} />
        </>
      ) : (
        <>
          {documentFields.map(([name, label]) => (
            <TextField
              key={name}
              label={`${label} (optional)`}
              name={`item.${name}`}
              error={errorOf(`item.${name}`)}
            />
          ))}
          <TextAreaField
            label="Body (the newest message)"
            name="item.body"
            rows={4}
            defaultValue="The quarterly numbers are attached; can we go over them on Thursday?"
            error={errorOf('item.body')}
          />
        </>
      )}
    </fieldset>
  );
}

const text = (data: FormData, name: string) => String(data.get(name) ?? '');
const optional = (data: FormData, name: string) => {
  const value = text(data, name).trim();
  return value === '' ? undefined : value;
};

export function titleBody(data: FormData, messages: number): TitleBody {
  return {
    messages: Array.from({ length: messages }, (_, i) => ({
      role: text(data, `messages[${i}].role`) as 'user' | 'assistant',
      content: text(data, `messages[${i}].content`),
    })),
  };
}

/** The arguments as JSON when they parse as an object, else as the text typed. */
function argumentsOf(value: string | undefined): Record<string, unknown> | string | undefined {
  if (value === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // sent as text
  }
  return value;
}

export function previewBody(data: FormData, kind: PreviewKind): PreviewBody {
  const reader = optional(data, 'reader');
  const common = reader === undefined ? {} : { reader };
  if (kind === 'agent_action') {
    const args = argumentsOf(optional(data, 'item.arguments'));
    const result = optional(data, 'item.result');
    const context = optional(data, 'item.context');
    return {
      kind,
      ...common,
      item: {
        tool: text(data, 'item.tool'),
        ...(args === undefined ? {} : { arguments: args }),
        ...(result === undefined ? {} : { result }),
        ...(context === undefined ? {} : { context }),
      },
    };
  }
  const item: Record<string, string> = {};
  for (const [name] of documentFields) {
    const value = optional(data, `item.${name}`);
    if (value !== undefined) item[name] = value;
  }
  const body = optional(data, 'item.body');
  if (body !== undefined) item.body = body;
  return { kind, ...common, item };
}
