import { describe, expect, it } from 'vitest';
import { idParams } from '../../../api/sandboxes/context.ts';
import { accessibilityActBody } from '../../../domain/sandboxes/desktop-requests.ts';
import { inputAction } from '../../../domain/sandboxes/input-actions.ts';
import { parseSandboxBody } from '../../../domain/sandboxes/parse.ts';
import {
  createSandboxBody,
  execBody,
  listSandboxesQuery,
  updateSandboxBody,
} from '../../../domain/sandboxes/requests.ts';
import { holdsNul, nulRefused, textWithoutNul } from '../../../domain/text.ts';

// The NUL rule (domain/text.ts): a caller's text bound for Postgres or a process may hold any
// character but U+0000; each such field of the sandbox surface refuses it with a 422 naming it.

describe('textWithoutNul', () => {
  it.each(['', 'plain', 'line\nbreak\ttab', '\u0001\u001f\u007f', 'été 🚀', '\\u0000', '%00'])(
    'takes %j',
    (text) => {
      expect(holdsNul(text)).toBe(false);
      expect(textWithoutNul().parse(text)).toBe(text);
    },
  );

  it.each(['\u0000', 'a\u0000', '\u0000a', 'a\u0000b', 'a\u0000\u0000'])('refuses %j', (text) => {
    expect(holdsNul(text)).toBe(true);
    const parsed = textWithoutNul().safeParse(text);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.message)).toEqual([nulRefused]);
  });

  it('keeps the checks chained after it, and its own message for what is not a string', () => {
    const short = textWithoutNul('send a string').max(3, 'at most 3');
    expect(short.safeParse('abcd').error?.issues[0]?.message).toBe('at most 3');
    expect(short.safeParse(7).error?.issues[0]?.message).toBe('send a string');
  });
});

describe('the sandbox fields that reach Postgres, a process or the desktop', () => {
  const refused = (param: string) => ({
    ok: false,
    param,
    message: `Invalid \`${param}\`: ${nulRefused}.`,
  });

  it.each([
    ['create, metadata', createSandboxBody, { metadata: { team: 'a\u0000' } }, 'metadata.team'],
    ['create, idempotency_key', createSandboxBody, { idempotency_key: '\u0000' }, 'idempotency_key'],
    ['update, metadata', updateSandboxBody, { metadata: { team: '\u0000' } }, 'metadata.team'],
    ['list, metadata[key]', listSandboxesQuery, { 'metadata[team]': 'a\u0000b' }, 'metadata.team'],
    ['exec, command', execBody, { command: 'echo \u0000' }, 'command'],
    ['exec, env', execBody, { command: 'env', env: { TEAM: '\u0000' } }, 'env.TEAM'],
    ['desktop input, type', inputAction, { action: 'type', text: 'a\u0000b' }, 'text'],
    [
      'accessibility, set-text',
      accessibilityActBody,
      { ref: 'e1', action: 'set-text', text: '\u0000' },
      'text',
    ],
  ] as const)('%s', (_what, schema, input, param) => {
    expect(parseSandboxBody(schema, input)).toEqual(refused(param));
  });

  it('take the same values without the NUL', () => {
    expect(parseSandboxBody(createSandboxBody, { metadata: { team: 'a' }, idempotency_key: 'k' }).ok).toBe(
      true,
    );
    expect(parseSandboxBody(execBody, { command: 'env', env: { TEAM: 'a' } }).ok).toBe(true);
  });

  it('`:id` of every sandbox route', () => {
    expect(idParams.safeParse({ id: 'sb-\u0000' }).error?.issues[0]).toMatchObject({
      path: ['id'],
      message: nulRefused,
    });
    expect(idParams.parse({ id: 'sb-1' })).toEqual({ id: 'sb-1' });
  });
});
