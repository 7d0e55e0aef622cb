import { describe, expect, it } from 'vitest';
import { splitInput } from '../src/tracing/turns.ts';

const message = (role: string, content: string) => ({ role, parts: [{ type: 'text', content }] });

describe('splitInput', () => {
  it('keeps what is new in the turn: the messages after the last answer in the input', () => {
    const history = [message('system', 'Be brief.'), message('user', 'Hi'), message('assistant', 'Hello!')];
    const asked = message('user', 'Where is my parcel?');
    expect(splitInput({ messages: [...history, asked] })).toEqual({
      latest: { messages: [asked] },
      earlier: history,
    });
  });

  it('keeps a tool result after the call as new', () => {
    const call = {
      role: 'assistant',
      parts: [{ type: 'tool_call', id: 'c1', name: 'track', arguments: {} }],
    };
    const result = { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: 'ok' }] };
    expect(splitInput({ messages: [message('user', 'Track it'), call, result] })).toEqual({
      latest: { messages: [result] },
      earlier: [message('user', 'Track it'), call],
    });
  });

  it.each([
    ['a first turn, no answer yet', { messages: [message('system', 'Be brief.'), message('user', 'Hi')] }],
    ['an input ending with an answer', { messages: [message('user', 'Hi'), message('assistant', 'Hello!')] }],
    ['a value', { value: 'Where is my parcel?' }],
    ['no messages array', { messages: 'not a list' }],
    ['null', null],
  ])('shows %s whole', (_, content) => {
    expect(splitInput(content)).toEqual({ latest: content, earlier: [] });
  });
});
