import { describe, expect, it } from 'vitest';
import { type FallbackRequest, fallbackTable, fallbackText } from '../../../domain/inference/fallback.ts';
import type { PreviewRequest } from '../../../domain/inference/requests.ts';

const preview = (request: PreviewRequest): FallbackRequest => ({ task: 'preview', request });
const fifteen = Array.from({ length: 15 }, (_, i) => `w${i + 1}`).join(' ');

describe('Fallback text', () => {
  it('has the rows of the spec table, in order', () => {
    expect(fallbackTable.map((row) => row.request)).toEqual([
      'title',
      'preview, agent_action, no result',
      'preview, agent_action, with a result',
      'any other preview',
    ]);
  });

  it.each([
    { name: 'title', request: { task: 'title' } as FallbackRequest, text: 'New conversation' },
    {
      name: 'agent_action without result',
      request: preview({ kind: 'agent_action', item: { tool: 'search_web' } }),
      text: 'Running search_web…',
    },
    {
      name: 'agent_action with a null result',
      request: preview({ kind: 'agent_action', item: { tool: 'search_web', result: null } }),
      text: 'Running search_web…',
    },
    {
      name: 'agent_action with a result',
      request: preview({ kind: 'agent_action', item: { tool: 'search_web', result: '3 hits' } }),
      text: 'Ran search_web',
    },
    {
      name: 'agent_action with an empty result',
      request: preview({ kind: 'agent_action', item: { tool: 'rm', result: '' } }),
      text: 'Ran rm',
    },
    {
      name: 'agent_action with a tool name over lines',
      request: preview({ kind: 'agent_action', item: { tool: ' read\nfile ' } }),
      text: 'Running read file…',
    },
    {
      name: 'the subject first',
      request: preview({ kind: 'email', item: { subject: 'Q3 plan', title: 'T', body: 'B' } }),
      text: 'Q3 plan',
    },
    {
      name: 'else the title',
      request: preview({ kind: 'doc', item: { subject: ' ', title: 'Roadmap', body: 'B' } }),
      text: 'Roadmap',
    },
    {
      name: "else the body's first line",
      request: preview({ kind: 'message', item: { body: 'Hello there\nSecond line' } }),
      text: 'Hello there',
    },
    {
      name: "the body's first non-blank line",
      request: preview({ kind: 'message', item: { body: '\n  \r\nHello there\nSecond line' } }),
      text: 'Hello there',
    },
    {
      name: 'a subject without a word is skipped',
      request: preview({ kind: 'issue', item: { subject: '---', body: 'Crash on start' } }),
      text: 'Crash on start',
    },
    {
      name: 'exactly 15 words are kept',
      request: preview({ kind: 'ticket', item: { subject: fifteen } }),
      text: fifteen,
    },
    {
      name: 'cut at 15 words',
      request: preview({ kind: 'ticket', item: { subject: `${fifteen} w16 w17` } }),
      text: fifteen,
    },
    {
      name: 'a subject over lines becomes one line',
      request: preview({ kind: 'email', item: { subject: 'Q3\n  plan' } }),
      text: 'Q3 plan',
    },
    { name: 'nothing: the email kind', request: preview({ kind: 'email', item: {} }), text: 'Email' },
    {
      name: 'nothing: the doc kind',
      request: preview({ kind: 'doc', item: { body: '\n' } }),
      text: 'Document',
    },
    { name: 'nothing: the event kind', request: preview({ kind: 'event', item: {} }), text: 'Event' },
  ])('$name → $text', ({ request, text }) => {
    expect(fallbackText(request)).toBe(text);
  });
});
