import { describe, expect, it } from 'vitest';
import { parseInferenceBody, previewRequest, titleRequest } from '../../../domain/inference/requests.ts';
import { formatParam } from '../../../domain/params.ts';

describe('parseInferenceBody: title request body', () => {
  it.each([
    { body: { messages: [{ role: 'user', content: 'Hi' }] } },
    { body: { messages: [{ name: 'Ana', content: 'Hi' }] } },
    { body: { messages: [{ role: 'assistant', name: 'Bot', content: '' }] } },
  ])('accepts $body', ({ body }) => {
    expect(parseInferenceBody(titleRequest, body)).toEqual({ ok: true, value: body });
  });

  it.each([
    { body: null, param: '', message: 'Send a JSON object as the body.' },
    { body: [], param: '', message: 'Send a JSON object as the body.' },
    { body: {}, param: 'messages', message: '`messages` is required: send it as an array.' },
    { body: { messages: {} }, param: 'messages', message: '`messages` must be an array.' },
    { body: { messages: [] }, param: 'messages', message: '`messages` must not be empty.' },
    {
      body: { messages: [{ role: 'user' }] },
      param: 'messages[0].content',
      message: '`messages[0].content` is required: send it as a string.',
    },
    {
      body: {
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: 7 },
        ],
      },
      param: 'messages[1].content',
      message: '`messages[1].content` must be a string.',
    },
    {
      body: { messages: [{ role: 'user', content: null }] },
      param: 'messages[0].content',
      message: '`messages[0].content` must be a string, not null.',
    },
    {
      body: { messages: [{ role: 'system', content: 'x' }] },
      param: 'messages[0].role',
      message: '`messages[0].role` must be one of `user`, `assistant`.',
    },
    {
      body: { messages: [{ content: 'x' }] },
      param: 'messages[0].role',
      message: '`messages[0].role`: a message needs `role` (`user` or `assistant`), `name`, or both.',
    },
    {
      body: { messages: [{ name: '  ', content: 'x' }] },
      param: 'messages[0].role',
      message: '`messages[0].role`: a message needs `role` (`user` or `assistant`), `name`, or both.',
    },
    {
      body: { messages: [{ role: 'user', content: 'x', tool_calls: [] }] },
      param: 'messages[0].tool_calls',
      message: '`messages[0].tool_calls` is not a field of this request: remove it, or check its spelling.',
    },
    {
      body: { messages: [{ role: 'user', content: 'x' }], model: 'm' },
      param: 'model',
      message: '`model` is not a field of this request: remove it, or check its spelling.',
    },
  ])('refuses $body with param "$param"', ({ body, param, message }) => {
    expect(parseInferenceBody(titleRequest, body)).toEqual({ ok: false, param, message });
  });
});

describe('parseInferenceBody: preview request body', () => {
  it.each([
    { body: { kind: 'email', item: {} } },
    { body: { kind: 'doc', reader: 'Ana', language: 'English', item: { title: 'Plan', body: 'Text' } } },
    { body: { kind: 'message', item: { thread: [{ name: 'Bob', content: 'Hi' }], body: 'Yo' } } },
    { body: { kind: 'agent_action', item: { tool: 'search' } } },
    { body: { kind: 'agent_action', item: { tool: 'search', arguments: { q: 1 }, result: null } } },
    {
      body: { kind: 'agent_action', item: { tool: 'search', arguments: 'q=1', result: 'ok', context: 'c' } },
    },
  ])('accepts $body', ({ body }) => {
    expect(parseInferenceBody(previewRequest, body)).toEqual({ ok: true, value: body });
  });

  const kinds = '`email`, `message`, `ticket`, `issue`, `event`, `doc`, `agent_action`';
  it.each([
    { body: { item: {} }, param: 'kind', message: `\`kind\` is required: send one of ${kinds}.` },
    { body: { kind: 'sms', item: {} }, param: 'kind', message: `\`kind\` must be one of ${kinds}.` },
    { body: { kind: 'email' }, param: 'item', message: '`item` is required: send it as an object.' },
    { body: { kind: 'email', item: 'x' }, param: 'item', message: '`item` must be an object.' },
    {
      body: { kind: 'email', item: {}, language: 'French' },
      param: 'language',
      message: '`language` must be `English`.',
    },
    { body: { kind: 'email', item: {}, reader: 3 }, param: 'reader', message: '`reader` must be a string.' },
    {
      body: { kind: 'email', item: { subject: ['a'] } },
      param: 'item.subject',
      message: '`item.subject` must be a string.',
    },
    {
      body: { kind: 'email', item: { tool: 'x' } },
      param: 'item.tool',
      message: '`item.tool` is not a field of this request: remove it, or check its spelling.',
    },
    {
      body: { kind: 'email', item: { thread: [{ role: 'user' }] } },
      param: 'item.thread[0].content',
      message: '`item.thread[0].content` is required: send it as a string.',
    },
    {
      body: { kind: 'agent_action', item: {} },
      param: 'item.tool',
      message: '`item.tool` is required: send it as a string.',
    },
    {
      body: { kind: 'agent_action', item: { tool: '' } },
      param: 'item.tool',
      message: '`item.tool` must not be empty.',
    },
    {
      body: { kind: 'agent_action', item: { tool: 't', arguments: 3 } },
      param: 'item.arguments',
      message: '`item.arguments` must be an object or a string.',
    },
    {
      body: { kind: 'agent_action', item: { tool: 't', arguments: [1] } },
      param: 'item.arguments',
      message: '`item.arguments` must be an object or a string.',
    },
    {
      body: { kind: 'agent_action', item: { tool: 't', result: 4 } },
      param: 'item.result',
      message: '`item.result` must be a string or null.',
    },
    {
      body: { kind: 'agent_action', item: { tool: 't', subject: 's' } },
      param: 'item.subject',
      message: '`item.subject` is not a field of this request: remove it, or check its spelling.',
    },
    {
      body: { kind: 'email', item: {}, 'bad key': 1 },
      param: '["bad key"]',
      message: '`["bad key"]` is not a field of this request: remove it, or check its spelling.',
    },
  ])('refuses $body with param "$param"', ({ body, param, message }) => {
    expect(parseInferenceBody(previewRequest, body)).toEqual({ ok: false, param, message });
  });
});

describe('formatParam', () => {
  it.each([
    { path: [], param: '' },
    { path: ['language'], param: 'language' },
    { path: ['messages', 0, 'content'], param: 'messages[0].content' },
    { path: ['item', 'thread', 12, 'name'], param: 'item.thread[12].name' },
    { path: ['item', 'a-b'], param: 'item["a-b"]' },
  ])('$path → "$param"', ({ path, param }) => {
    expect(formatParam(path)).toBe(param);
  });
});
