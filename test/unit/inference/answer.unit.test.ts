import { describe, expect, it } from 'vitest';
import { type AnswerInput, decideAnswer } from '../../../domain/inference/answer.ts';

const title = (modelLine: string | null): AnswerInput => ({
  task: 'title',
  request: { messages: [{ role: 'user', content: 'How do I reset my password?' }] },
  modelLine,
});
const emailPreview = (modelLine: string | null): AnswerInput => ({
  task: 'preview',
  request: { kind: 'email', item: { subject: 'Q3 plan', body: 'Here it is' } },
  modelLine,
});
const runningTool = (modelLine: string | null): AnswerInput => ({
  task: 'preview',
  request: { kind: 'agent_action', item: { tool: 'search_web' } },
  modelLine,
});

describe('decideAnswer: clean, check, fall back', () => {
  it.each([
    { input: title('Password reset help'), text: 'Password reset help', fallback: false, failed: undefined },
    {
      input: title('Title: "Password reset help"\n'),
      text: 'Password reset help',
      fallback: false,
      failed: undefined,
    },
    {
      input: title('Password reset help.'),
      text: 'New conversation',
      fallback: true,
      failed: 'no full stop at the end',
    },
    { input: title('Reset'), text: 'New conversation', fallback: true, failed: '2 to 8 words' },
    { input: title(''), text: 'New conversation', fallback: true, failed: '2 to 8 words' },
    { input: title(null), text: 'New conversation', fallback: true, failed: '2 to 8 words' },
    {
      input: emailPreview('Preview: Bob sent the Q3 plan.'),
      text: 'Bob sent the Q3 plan.',
      fallback: false,
      failed: undefined,
    },
    {
      input: emailPreview('Bob a envoyé le plan pour la réunion'),
      text: 'Q3 plan',
      fallback: true,
      failed: 'English',
    },
    { input: emailPreview('Bob sent\nthe plan'), text: 'Q3 plan', fallback: true, failed: 'one line' },
    {
      input: runningTool('Searching the web'),
      text: 'Searching the web',
      fallback: false,
      failed: undefined,
    },
    { input: runningTool(null), text: 'Running search_web…', fallback: true, failed: '1 to 20 words' },
  ])('$input.task "$input.modelLine" → "$text"', ({ input, text, fallback, failed }) => {
    const answer = decideAnswer(input);
    expect(answer).toEqual(failed === undefined ? { text, fallback } : { text, fallback, failed });
  });
});
