import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { InferenceModelConfig } from '../../platform/config.ts';
import { freePort } from './ports.ts';

/**
 * A scripted OpenAI-compatible chat-completions server: the stand-in for the language model
 * behind the title and preview service (DESIGN.md, Testing: the one test double allowed). It is
 * a real HTTP server; each test scripts what it answers.
 */
export interface ModelRequest {
  model: string;
  messages: { role: string; content: string }[];
  maxTokens: number | undefined;
  stop: string[] | undefined;
  /** vLLM's: the last message is the started answer, to be continued. */
  continueFinalMessage: boolean | undefined;
  /** Every field of the body, the server-specific ones included (a model's `extraBody`). */
  body: Record<string, unknown>;
  authorization: string | undefined;
}

export type Scripted =
  /** A chat completion with this line (null: no content) and the usage the model reports. */
  | { line: string | null; usage?: { input: number; output: number }; delayMs?: number }
  /** A bare status, as a failing server answers. */
  | { status: number; delayMs?: number }
  /** Whatever body, with status 200 unless given: garbage JSON, a non-completion. */
  | { raw: string; status?: number }
  /** The connection is cut without an answer. */
  | { reset: true };

export interface ModelServer {
  /** What the service configures as `baseUrl`: the server's `/v1`. */
  readonly baseUrl: string;
  /** Every request received, oldest first. */
  readonly requests: ModelRequest[];
  /** Sets what each request is answered with from now on. */
  script(answer: (request: ModelRequest, index: number) => Scripted): void;
  close(): Promise<void>;
}

const defaultUsage = { input: 12, output: 4 };

export function completion(line: string | null, usage = defaultUsage, model = 'stand-in'): string {
  return JSON.stringify({
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: line }, finish_reason: 'stop' }],
    usage: {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
    },
  });
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function answer(response: ServerResponse, scripted: Scripted, model: string): void {
  if ('reset' in scripted) {
    response.socket?.destroy();
    return;
  }
  if ('raw' in scripted) {
    response.writeHead(scripted.status ?? 200, { 'content-type': 'application/json' }).end(scripted.raw);
    return;
  }
  if ('status' in scripted) {
    response.writeHead(scripted.status, { 'content-type': 'application/json' }).end('{"error":"scripted"}');
    return;
  }
  response
    .writeHead(200, { 'content-type': 'application/json' })
    .end(completion(scripted.line, scripted.usage, model));
}

export async function startModelServer(
  initial: (request: ModelRequest, index: number) => Scripted = () => ({ line: 'A scripted line' }),
): Promise<ModelServer> {
  const requests: ModelRequest[] = [];
  let handler = initial;
  const server: Server = createServer(async (request, response) => {
    const body = JSON.parse(await readBody(request)) as {
      model: string;
      messages: ModelRequest['messages'];
      max_tokens?: number;
      stop?: string[];
      continue_final_message?: boolean;
    } & Record<string, unknown>;
    const received: ModelRequest = {
      model: body.model,
      messages: body.messages,
      maxTokens: body.max_tokens,
      stop: body.stop,
      continueFinalMessage: body.continue_final_message,
      body,
      authorization: request.headers.authorization,
    };
    requests.push(received);
    const scripted = handler(received, requests.length - 1);
    const delayMs = 'delayMs' in scripted ? (scripted.delayMs ?? 0) : 0;
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (!response.destroyed) answer(response, scripted, body.model);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script(next) {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A base URL where nothing listens: a port that was free a moment ago (connection refused). */
export async function refusedBaseUrl(): Promise<string> {
  // Found bindable, and never handed out again in this process: nothing listens there.
  return `http://127.0.0.1:${await freePort()}/v1`;
}

/** A model for titles and previews served by `server`, as most tests deploy one. */
export function scriptedModel(server: ModelServer, name = 'scribe'): InferenceModelConfig {
  return {
    name,
    writes: ['titles', 'previews'],
    baseUrl: server.baseUrl,
    timeoutMs: 2000,
    retries: 0,
    maxTokens: 64,
    answerPrefix: false,
  };
}
