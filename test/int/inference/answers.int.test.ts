import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPreview } from '../../../domain/inference/render-preview.ts';
import { renderTitle } from '../../../domain/inference/render-title.ts';
import { previewRequest, titleRequest } from '../../../domain/inference/requests.ts';
import { serviceBodyFields } from '../../../platform/config.ts';
import type { Scripted } from '../../harness/model-server.ts';
import {
  type Customer,
  emailBody,
  type InferenceService,
  invoke,
  loggedRequest,
  newCustomer,
  startInferenceService,
  titleBody,
  upstreamKey,
} from './service.ts';

// Answers of the title and preview endpoints (spec 000, Answer; Output checks; Fallback text)
// through HTTP, against the scripted model; each answer's usage event read back from the
// request log in ClickHouse.

let service: InferenceService;
let customer: Customer;
beforeAll(async () => {
  service = await startInferenceService();
  customer = await newCustomer(service, { name: 'Answers' });
});
afterAll(() => service.stop());

const answerWith = (scripted: Scripted) => service.model.script(() => scripted);

describe('an answered title', () => {
  it('renders the chat for the model, answers its line, and reports its usage', async () => {
    answerWith({ line: 'Password reset help', usage: { input: 57, output: 5 } });
    const response = await invoke(service.api, 'scribe/v1/titles', titleBody, customer.key);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      object: 'title',
      model: 'scribe',
      text: 'Password reset help',
      fallback: false,
      usage: { input_tokens: 57, output_tokens: 5 },
      latency_ms: expect.any(Number),
    });
    const asked = service.model.requests.at(-1)!;
    expect(asked.model).toBe('stand-in/scribe');
    expect(asked.authorization).toBe(`Bearer ${upstreamKey}`);
    expect(asked.messages).toEqual(
      renderTitle(titleRequest.parse(titleBody), { answerPrefix: false }).messages,
    );
    expect(asked.stop).toBeUndefined();
    expect(asked.continueFinalMessage).toBeUndefined();

    const requestId = String(response.headers['x-request-id']);
    const logged = await loggedRequest(service.api, customer.key, requestId);
    expect(logged).toEqual({
      id: requestId,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      key: { id: customer.keyId, name: 'test key', prefix: expect.stringMatching(/^orr_/) },
      person: null,
      model: 'scribe',
      endpoint: 'titles',
      input_tokens: 57,
      output_tokens: 5,
      fallback: false,
      latency_ms: response.json().latency_ms,
    });
  });
});

describe('the time an answer took', () => {
  it("tells the model's time from the service's in Server-Timing", async () => {
    answerWith({ line: 'Password reset help', delayMs: 40 });
    const response = await invoke(service.api, 'scribe/v1/titles', titleBody, customer.key);
    expect(response.statusCode).toBe(200);
    const { latency_ms } = response.json();
    expect(latency_ms).toBeGreaterThanOrEqual(40);
    const timing = /^model;dur=([\d.]+), service;dur=([\d.]+)$/.exec(
      String(response.headers['server-timing']),
    );
    expect(timing).not.toBeNull();
    expect(Number(timing![1])).toBe(latency_ms);
    expect(Number(timing![2])).toBeGreaterThanOrEqual(latency_ms);
    expect(String(response.headers['x-request-id'])).toMatch(/^req_[0-9a-f]{24}$/);
  });
});

describe('an answered preview', () => {
  it('renders the item for the model and answers its line', async () => {
    answerWith({ line: 'Bob sent you the Q3 plan', usage: { input: 80, output: 7 } });
    const response = await invoke(service.api, 'scribe/v1/previews', emailBody, customer.key);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      object: 'preview',
      text: 'Bob sent you the Q3 plan',
      fallback: false,
    });
    expect(service.model.requests.at(-1)!.messages).toEqual(
      renderPreview(previewRequest.parse(emailBody), { answerPrefix: false }).messages,
    );
  });

  it('cleans a wrapped line before checking it', async () => {
    answerWith({ line: '  Preview: "Bob sent you the Q3 plan"\n' });
    const response = await invoke(service.api, 'scribe/v1/previews', emailBody, customer.key);
    expect(response.json()).toMatchObject({ text: 'Bob sent you the Q3 plan', fallback: false });
  });
});

describe('a model that continues a started answer (answerPrefix)', () => {
  it.each([
    ['titles', titleBody, 'Title:', 'Password reset help', ['\n']],
    // A preview also ends at its first sentence (preview-v3).
    ['previews', emailBody, 'Preview:', 'Bob sent you the Q3 plan', ['\n', '. ']],
  ])(
    '%s: starts the answer with its label and stops at the line break',
    async (endpoint, body, label, line, stop) => {
      // llama.cpp's server answers with the started text included; vLLM with the rest alone.
      for (const answered of [`${label} ${line}`, ` ${line}`]) {
        answerWith({ line: answered });
        const response = await invoke(service.api, `continuer/v1/${endpoint}`, body, customer.key);
        expect(response.json()).toMatchObject({ text: line, fallback: false });
        const asked = service.model.requests.at(-1)!;
        expect(asked.messages.at(-1)).toEqual({ role: 'assistant', content: label });
        expect(asked.messages.at(-2)).toMatchObject({ role: 'user' });
        expect(asked.stop).toEqual(stop);
        expect(asked.continueFinalMessage).toBe(true);
      }
    },
  );

  it("sends the model's extraBody fields beside the service's own", async () => {
    answerWith({ line: 'Title: Password reset help' });
    await invoke(service.api, 'continuer/v1/titles', titleBody, customer.key);
    const asked = service.model.requests.at(-1)!;
    expect(asked.body).toMatchObject({ dry_multiplier: 0.8, grammar: 'root ::= [a-z]+', temperature: 0 });
    // Every other field is one the service sets, which a model's extraBody may not name.
    const serviceFields = Object.keys(asked.body).filter(
      (field) => !['dry_multiplier', 'grammar'].includes(field),
    );
    expect(new Set(serviceFields)).toEqual(serviceBodyFields);
  });
});

const agentRunning = { kind: 'agent_action', item: { tool: 'search_web', arguments: { query: 'rust' } } };
const agentDone = { kind: 'agent_action', item: { tool: 'search_web', result: '3 results' } };
const longWords = Array.from({ length: 21 }, (_, i) => `word${i}`).join(' ');

describe('a line that fails a check falls back, and is billed like any other', () => {
  it.each<[string, string, unknown, string | null, string]>([
    ['title: one word', 'titles', titleBody, 'Password', 'New conversation'],
    [
      'title: nine words',
      'titles',
      titleBody,
      'How to reset a forgotten password in the app',
      'New conversation',
    ],
    ['title: quotes', 'titles', titleBody, 'The "reset" password question', 'New conversation'],
    ['title: emoji', 'titles', titleBody, 'Password reset 🔑', 'New conversation'],
    ['title: full stop', 'titles', titleBody, 'Password reset help.', 'New conversation'],
    ['title: not English', 'titles', titleBody, 'Bob demande le plan pour la réunion', 'New conversation'],
    ['title: two lines', 'titles', titleBody, 'Password reset\nhelp', 'New conversation'],
    ['title: no content', 'titles', titleBody, null, 'New conversation'],
    ['preview: 21 words', 'previews', emailBody, longWords, 'Q3 plan'],
    ['preview: over 160 characters', 'previews', emailBody, `${'abcdefghij'.repeat(17)}`, 'Q3 plan'],
    ['preview: not English', 'previews', emailBody, 'Cómo restablecer la contraseña', 'Q3 plan'],
    ['preview: two lines', 'previews', emailBody, 'Bob sent\nthe plan', 'Q3 plan'],
    ['preview: agent_action running', 'previews', agentRunning, '', 'Running search_web…'],
    ['preview: agent_action finished', 'previews', agentDone, '', 'Ran search_web'],
  ])('%s', async (_, endpoint, body, line, fallback) => {
    answerWith({ line, usage: { input: 33, output: 9 } });
    const response = await invoke(service.api, `scribe/v1/${endpoint}`, body, customer.key);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ text: fallback, fallback: true, usage: { input_tokens: 33 } });
    const logged = await loggedRequest(service.api, customer.key, String(response.headers['x-request-id']));
    expect(logged).toMatchObject({ fallback: true, input_tokens: 33, output_tokens: 9, endpoint });
  });
});

describe('latency_ms is the model time', () => {
  it('measures the upstream call, not the time the service adds', async () => {
    answerWith({ line: 'Password reset help', delayMs: 300 });
    const started = performance.now();
    const response = await invoke(service.api, 'scribe/v1/titles', titleBody, customer.key);
    const total = performance.now() - started;
    const latency = response.json().latency_ms as number;
    // At least the model's scripted 300 ms, and less than the whole request: the rest is ours
    // (parsing, rendering, checks, the usage event's acknowledgement). No upper bound on speed:
    // these machines are shared; bench/inference measures it.
    expect(latency).toBeGreaterThanOrEqual(300);
    expect(total - latency).toBeGreaterThan(0);
    const logged = await loggedRequest(service.api, customer.key, String(response.headers['x-request-id']));
    expect(logged.latency_ms).toBe(latency);
  });
});
