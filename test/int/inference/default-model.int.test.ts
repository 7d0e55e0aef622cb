import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApi } from '../../../api/app.ts';
import { checkPreview, checkTitle } from '../../../domain/inference/checks.ts';
import type { PromptMessage } from '../../../domain/inference/prompt.ts';
import { renderPreview } from '../../../domain/inference/render-preview.ts';
import { renderTitle } from '../../../domain/inference/render-title.ts';
import { previewRequest, titleRequest } from '../../../domain/inference/requests.ts';
import { config } from '../../../platform/config.ts';
import { logger } from '../../../platform/logger.ts';
import { startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { type Customer, emailBody, invoke, loggedRequest, newCustomer, titleBody } from './service.ts';

// The default model (issue 13): the real SmolLM2-135M that the stack's `model` part serves
// (started by the harness's global setup like the other parts), asked through the API as
// configured with ORRERY_MODELS unset. The words are the model's; the checks are on the answer's
// shape, and on its usage being the model's own count of the prompt we rendered.

const { localModel, models } = config().inference;
// The default model continues a started answer: its prompts are rendered in that style.
const style = { answerPrefix: models[0]?.answerPrefix ?? false };

let platform: TestPlatform;
let api: FastifyInstance;
let customer: Customer;

describe.skipIf(localModel === undefined)('the default model (ORRERY_MODELS unset)', () => {
  beforeAll(async () => {
    platform = await startTestPlatform({ consumers: true });
    // No `models`: the API serves what config.ts decides, as `npm start` does.
    api = await buildApi({
      logger,
      directory: platform.directory,
      producer: platform.producer,
      pool: platform.pool,
      ready: () => true,
    });
    await api.ready();
    customer = await newCustomer({ platform }, { name: 'Default Model' });
  });
  afterAll(async () => {
    await api?.close();
    await platform?.stop();
  });

  /** The prompt's tokens as the model counts them: its chat template, then its tokenizer. */
  async function promptTokens(messages: PromptMessage[]): Promise<number> {
    const base = `http://127.0.0.1:${localModel!.port}`;
    const post = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
      const response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      return (await response.json()) as Record<string, unknown>;
    };
    const { prompt } = (await post('/apply-template', { messages })) as { prompt: string };
    const { tokens } = (await post('/tokenize', {
      content: prompt,
      add_special: true,
      parse_special: true,
    })) as {
      tokens: number[];
    };
    return tokens.length;
  }

  it.each([
    {
      endpoint: 'titles',
      object: 'title',
      body: titleBody,
      prompt: () => renderTitle(titleRequest.parse(titleBody), style).messages,
      check: checkTitle,
    },
    {
      endpoint: 'previews',
      object: 'preview',
      body: emailBody,
      prompt: () => renderPreview(previewRequest.parse(emailBody), style).messages,
      check: checkPreview,
    },
  ])(
    'writes a $object, billed with the tokens the model read and wrote',
    async ({ endpoint, object, body, prompt, check }) => {
      const response = await invoke(api, `smollm2-135m/v1/${endpoint}`, body, customer.key);
      expect(response.statusCode, response.body).toBe(200);
      const answer = response.json();
      expect(answer).toEqual({
        object,
        model: 'smollm2-135m',
        text: expect.any(String),
        fallback: expect.any(Boolean),
        usage: { input_tokens: await promptTokens(prompt()), output_tokens: expect.any(Number) },
        latency_ms: expect.any(Number),
      });
      // Its own line when it passed the spec's checks; the spec's fallback text otherwise.
      if (!answer.fallback) expect(check(answer.text)).toEqual({ ok: true });
      expect(answer.text.trim().length).toBeGreaterThan(0);
      expect(answer.usage.output_tokens).toBeGreaterThanOrEqual(1);
      expect(answer.usage.output_tokens).toBeLessThanOrEqual(64);
      expect(answer.latency_ms).toBeGreaterThan(0);

      const logged = await loggedRequest(api, customer.key, String(response.headers['x-request-id']));
      expect(logged).toMatchObject({
        model: 'smollm2-135m',
        endpoint,
        input_tokens: answer.usage.input_tokens,
        output_tokens: answer.usage.output_tokens,
        fallback: answer.fallback,
      });
    },
  );
});
