import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { z } from 'zod';
import type { Prompt } from '../../domain/inference/prompt.ts';
import type { InferenceModelConfig } from '../../platform/config.ts';

// One question to a model behind an OpenAI-compatible chat-completions endpoint (vLLM,
// llama.cpp's server, Ollama, hosted gateways), over node:http with keep-alive connections
// (fetch measured about 1 ms of CPU per request more at 500 requests/s: bench/inference).
// Retries only a refused or reset connection and a 5xx, and only within the model's time budget;
// a timeout, any other status or an answer that is not a chat completion is final (502).

export type DeployedModel = InferenceModelConfig & { baseUrl: string };

export interface ModelReply {
  /** The model's line, or null when it answered without content (that falls back). */
  line: string | null;
  /** As the model reported them (spec 000, Answer: usage). */
  inputTokens: number;
  outputTokens: number;
  /** The model's time: from the first attempt to the parsed answer, retries included. */
  latencyMs: number;
}

export class UpstreamUnavailable extends Error {
  constructor(readonly reason: string) {
    super(`the model did not answer: ${reason}`);
    this.name = 'UpstreamUnavailable';
  }
}

const chatCompletion = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional() }) })).min(1),
  usage: z.object({
    prompt_tokens: z.number().int().min(0),
    completion_tokens: z.number().int().min(0),
  }),
});

type Attempt =
  | { ok: true; line: string | null; inputTokens: number; outputTokens: number }
  | { ok: false; retryable: boolean; reason: string };

const retryDelayMs = (attempt: number) => 25 * 2 ** attempt;

export async function askModel(model: DeployedModel, prompt: Prompt): Promise<ModelReply> {
  const started = performance.now();
  const deadline = started + model.timeoutMs;
  const request = {
    url: `${model.baseUrl.replace(/\/+$/, '')}/chat/completions`,
    headers: {
      'content-type': 'application/json',
      ...(model.apiKey ? { authorization: `Bearer ${model.apiKey}` } : {}),
    },
    body: JSON.stringify({
      ...model.extraBody,
      model: model.upstreamModel ?? model.name,
      messages: prompt.messages,
      ...(prompt.answerStarted
        ? { stop: prompt.answerStarted.stop, continue_final_message: true, add_generation_prompt: false }
        : {}),
      max_tokens: model.maxTokens,
      temperature: 0,
      stream: false,
    }),
  };
  for (let attempt = 0; ; attempt += 1) {
    const outcome = await attemptOnce(request, deadline - performance.now());
    if (outcome.ok) {
      const { line, inputTokens, outputTokens } = outcome;
      return { line, inputTokens, outputTokens, latencyMs: roundMs(performance.now() - started) };
    }
    const left = deadline - performance.now() - retryDelayMs(attempt);
    if (!outcome.retryable || attempt >= model.retries || left <= 0)
      throw new UpstreamUnavailable(outcome.reason);
    await new Promise((resolve) => setTimeout(resolve, retryDelayMs(attempt)));
  }
}

const roundMs = (ms: number) => Math.round(ms * 100) / 100;

const agents = {
  'http:': new HttpAgent({ keepAlive: true, maxSockets: 256 }),
  'https:': new HttpsAgent({ keepAlive: true, maxSockets: 256 }),
};

/** One POST: the status and the body, or the connection error; rejects with `timeout` past budgetMs. */
function post(
  request: { url: string; headers: Record<string, string>; body: string },
  budgetMs: number,
): Promise<{ status: number; text: string }> {
  const url = new URL(request.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = send(
      url,
      {
        method: 'POST',
        agent: url.protocol === 'https:' ? agents['https:'] : agents['http:'],
        headers: { ...request.headers, 'content-length': Buffer.byteLength(request.body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    const timer = setTimeout(() => outgoing.destroy(new TimeoutError()), Math.ceil(budgetMs));
    outgoing.on('close', () => clearTimeout(timer));
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

async function attemptOnce(
  request: { url: string; headers: Record<string, string>; body: string },
  budgetMs: number,
): Promise<Attempt> {
  if (budgetMs <= 0) return { ok: false, retryable: false, reason: 'timeout' };
  try {
    const response = await post(request, budgetMs);
    if (response.status < 200 || response.status >= 300) {
      return { ok: false, retryable: response.status >= 500, reason: `status ${response.status}` };
    }
    return readCompletion(response.text);
  } catch (error) {
    if (error instanceof TimeoutError) return { ok: false, retryable: false, reason: 'timeout' };
    // A refused, reset or dropped connection (ECONNREFUSED, ECONNRESET, "socket hang up").
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== undefined || (error instanceof Error && /socket hang up|aborted/.test(error.message)))
      return { ok: false, retryable: true, reason: `connection: ${code ?? (error as Error).message}` };
    throw error;
  }
}

function readCompletion(text: string): Attempt {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, retryable: false, reason: 'the answer is not JSON' };
  }
  const parsed = chatCompletion.safeParse(json);
  if (!parsed.success) return { ok: false, retryable: false, reason: 'the answer is not a chat completion' };
  const { choices, usage } = parsed.data;
  return {
    ok: true,
    line: choices[0]?.message.content ?? null,
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
  };
}
