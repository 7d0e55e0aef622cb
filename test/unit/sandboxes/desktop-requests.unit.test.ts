import { describe, expect, it } from 'vitest';
import {
  accessibilityActBody,
  accessibilityQuery,
  desktopActionBody,
  screenshotQuery,
} from '../../../domain/sandboxes/desktop-requests.ts';
import { parseSandboxBody } from '../../../domain/sandboxes/parse.ts';

function verdict(schema: Parameters<typeof parseSandboxBody>[0], input: unknown): true | string {
  const result = parseSandboxBody(schema, input);
  return result.ok ? true : result.param;
}

describe('desktop start and stop', () => {
  it.each([
    ['start', { action: 'start' }, true],
    ['stop', { action: 'stop' }, true],
    ['restart', { action: 'restart' }, 'action'],
    ['stop with a resolution', { action: 'stop', resolution: '800x600' }, 'resolution'],
    ['width 320', { action: 'start', resolution: '320x600' }, true],
    ['width 319', { action: 'start', resolution: '319x600' }, 'resolution'],
    ['width 1920', { action: 'start', resolution: '1920x600' }, true],
    ['width 1921', { action: 'start', resolution: '1921x600' }, 'resolution'],
    ['height 240', { action: 'start', resolution: '800x240' }, true],
    ['height 239', { action: 'start', resolution: '800x239' }, 'resolution'],
    ['height 1080', { action: 'start', resolution: '800x1080' }, true],
    ['height 1081', { action: 'start', resolution: '800x1081' }, 'resolution'],
    ['not WIDTHxHEIGHT', { action: 'start', resolution: '800*600' }, 'resolution'],
  ])('%s', (_name, body, expected) => {
    expect(verdict(desktopActionBody, body)).toBe(expected);
  });

  it('parses the resolution', () => {
    expect(parseSandboxBody(desktopActionBody, { action: 'start', resolution: '1920x1080' })).toEqual({
      ok: true,
      value: { action: 'start', resolution: { width: 1920, height: 1080 } },
    });
  });
});

describe('screenshot query', () => {
  it.each([
    [{}, { ok: true, value: {} }],
    [{ region: '0,0,640,400' }, { ok: true, value: { region: [0, 0, 640, 400] } }],
    [
      { region: '10,10,10,20' },
      { ok: false, param: 'region', message: 'Invalid `region`: send a region with x1 > x0 and y1 > y0.' },
    ],
    [{ region: '0,0,640' }, { ok: false, param: 'region' }],
    [{ region: '0,0,-1,400' }, { ok: false, param: 'region' }],
  ])('%j', (query, expected) => {
    expect(parseSandboxBody(screenshotQuery, query)).toMatchObject(expected);
  });
});

describe('accessibility', () => {
  it('reads the query with its defaults', () => {
    expect(parseSandboxBody(accessibilityQuery, {})).toEqual({
      ok: true,
      value: { depth: 200, include_hidden: false },
    });
    expect(
      parseSandboxBody(accessibilityQuery, { app: 'browser', depth: '3', include_hidden: 'true' }),
    ).toEqual({
      ok: true,
      value: { app: 'browser', depth: 3, include_hidden: true },
    });
  });

  it.each([
    [{ depth: '0' }, 'depth'],
    [{ depth: '1' }, true],
    [{ depth: '200' }, true],
    [{ depth: '201' }, 'depth'],
    [{ depth: 'deep' }, 'depth'],
    [{ include_hidden: '1' }, 'include_hidden'],
  ])('query %j', (query, expected) => {
    expect(verdict(accessibilityQuery, query)).toBe(expected);
  });

  it('asks for the text of set-text', () => {
    expect(parseSandboxBody(accessibilityActBody, { ref: 'e1', action: 'set-text' })).toEqual({
      ok: false,
      param: 'text',
      message: 'Missing `text`: send the text to set with `set-text`.',
    });
  });

  it.each([
    [{ ref: 'e12', action: 'press' }, true],
    [{ ref: 'e12', action: 'set-text', text: 'hello' }, true],
    [{ ref: 'e12', action: 'set-text' }, 'text'],
    [{ ref: 'e12', action: 'expand' }, true],
    [{ ref: '12', action: 'press' }, 'ref'],
    [{ ref: 'e12', action: 'Press!' }, 'action'],
  ])('act %j', (body, expected) => {
    expect(verdict(accessibilityActBody, body)).toBe(expected);
  });
});
