// A span's input or output as stored (spec 001, Input and output storage shape): `{ messages:
// [{ role, parts }] }` where a part is text, a tool call or a tool call's response, or
// `{ value }` for anything else. Shown as they are, never as HTML.

type Part =
  | { type: 'text'; content: string }
  | { type: 'tool_call'; id: string | null; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string | null; response: unknown };
type Message = { role: string; parts: Part[]; finish_reason?: string };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function messagesOf(io: unknown): Message[] | undefined {
  if (!isRecord(io) || !Array.isArray(io.messages)) return undefined;
  return io.messages.filter(
    (m): m is Message => isRecord(m) && typeof m.role === 'string' && Array.isArray(m.parts),
  );
}

/** JSON as readable text: a string as it is, anything else indented. */
export function jsonText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

export function InputOutput({ io, truncated }: { io: unknown; truncated: boolean }) {
  const truncation = truncated && (
    <p className="flag">Truncated: the span's content was longer than the stored limit, so its end is cut.</p>
  );
  if (io === null || io === undefined) return <p className="muted">None sent.</p>;
  const messages = messagesOf(io);
  if (messages)
    return (
      <>
        {truncation}
        <ol className="messages">
          {messages.map((message, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: messages are in order and never move
            <li key={index} className={`message role-${message.role}`}>
              <p className="role">
                {message.role}
                {message.finish_reason && <span className="muted"> (finished: {message.finish_reason})</span>}
              </p>
              {message.parts.map((part, partIndex) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: parts are in order and never move
                <MessagePart key={partIndex} part={part} />
              ))}
            </li>
          ))}
        </ol>
      </>
    );
  return (
    <>
      {truncation}
      <pre className="io-value">{jsonText(isRecord(io) && 'value' in io ? io.value : io)}</pre>
    </>
  );
}

function MessagePart({ part }: { part: Part }) {
  switch (part.type) {
    case 'text':
      return <p className="part-text">{part.content}</p>;
    case 'tool_call':
      return (
        <div className="part-tool">
          <p>
            Tool call <code>{part.name}</code>
            {part.id && <span className="muted"> ({part.id})</span>}
          </p>
          <pre>{jsonText(part.arguments)}</pre>
        </div>
      );
    case 'tool_call_response':
      return (
        <div className="part-tool">
          <p>Tool result{part.id && <span className="muted"> for {part.id}</span>}</p>
          <pre>{jsonText(part.response)}</pre>
        </div>
      );
    default:
      return <pre>{jsonText(part)}</pre>;
  }
}
