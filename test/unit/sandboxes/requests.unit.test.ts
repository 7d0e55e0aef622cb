import { describe, expect, it } from 'vitest';
import { parseSandboxBody } from '../../../domain/sandboxes/parse.ts';
import {
  createSandboxBody,
  createTokenBody,
  execBody,
  fileQuery,
  forkSandboxBody,
  listSandboxesQuery,
  updateSandboxBody,
} from '../../../domain/sandboxes/requests.ts';

const labels = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 'v']));
const origins = (count: number) => Array.from({ length: count }, (_, i) => `https://app${i}.example.com`);

/** `true` when accepted, otherwise the refused `param`. */
function verdict(schema: Parameters<typeof parseSandboxBody>[0], input: unknown): true | string {
  const result = parseSandboxBody(schema, input);
  return result.ok ? true : result.param;
}

describe('create body', () => {
  it('fills the defaults', () => {
    expect(parseSandboxBody(createSandboxBody, {})).toEqual({
      ok: true,
      value: {
        size: 'small',
        metadata: {},
        idle_timeout_seconds: 0,
        network: { egress: 'open', allow: [], deny: [] },
      },
    });
  });

  it('takes a network policy, canonical, or refuses it naming the entry', () => {
    expect(parseSandboxBody(createSandboxBody, { network: { egress: 'none' } })).toMatchObject({
      ok: true,
      value: { network: { egress: 'none', allow: [], deny: [] } },
    });
    expect(
      parseSandboxBody(createSandboxBody, { network: { deny: ['Example.COM', '203.0.113.9/24'] } }),
    ).toMatchObject({
      ok: true,
      value: { network: { egress: 'open', deny: ['example.com', '203.0.113.0/24'] } },
    });
    const rules = ['example.com', '203.0.113.0/24', 'docs.example.org', 'not a rule'];
    expect(verdict(createSandboxBody, { network: { allow: rules } })).toBe('network.allow[3]');
    expect(verdict(createSandboxBody, { network: { egress: 'closed' } })).toBe('network.egress');
    expect(verdict(createSandboxBody, { network: { egress: 'none', allow: ['example.com'] } })).toBe(
      'network.allow',
    );
    expect(verdict(createSandboxBody, { network: { deny: [], rules: [] } })).toBe('network.rules');
  });

  it.each([
    ['size xl', { size: 'xl' }, true],
    ['size huge', { size: 'huge' }, 'size'],
    ['name of 63 characters', { name: 'a'.repeat(63) }, true],
    ['name of 64 characters', { name: 'a'.repeat(64) }, 'name'],
    ['name with digits and dashes', { name: 'web-1-a' }, true],
    ['name with a capital', { name: 'Web' }, 'name'],
    ['name with an underscore', { name: 'web_1' }, 'name'],
    ['name starting with a dash', { name: '-web' }, 'name'],
    ['name ending with a dash', { name: 'web-' }, 'name'],
    ['empty name', { name: '' }, 'name'],
    ['16 metadata keys', { metadata: labels(16) }, true],
    ['17 metadata keys', { metadata: labels(17) }, 'metadata'],
    ['key of 40 characters', { metadata: { ['k'.repeat(40)]: 'v' } }, true],
    ['key of 41 characters', { metadata: { ['k'.repeat(41)]: 'v' } }, `metadata.${'k'.repeat(41)}`],
    ['key with a capital', { metadata: { Key: 'v' } }, 'metadata.Key'],
    ['key with _ . -', { metadata: { 'a_b.c-d': 'v' } }, true],
    ['empty key', { metadata: { '': 'v' } }, 'metadata[""]'],
    ['value of 256 characters', { metadata: { k: 'é'.repeat(256) } }, true],
    ['value of 257 characters', { metadata: { k: 'v'.repeat(257) } }, 'metadata.k'],
    ['value not a string', { metadata: { k: 5 } }, 'metadata.k'],
    ['idle timeout 0', { idle_timeout_seconds: 0 }, true],
    ['idle timeout 59', { idle_timeout_seconds: 59 }, 'idle_timeout_seconds'],
    ['idle timeout 60', { idle_timeout_seconds: 60 }, true],
    ['idle timeout 604800', { idle_timeout_seconds: 604_800 }, true],
    ['idle timeout 604801', { idle_timeout_seconds: 604_801 }, 'idle_timeout_seconds'],
    ['idle timeout 60.5', { idle_timeout_seconds: 60.5 }, 'idle_timeout_seconds'],
    ['idempotency key of 255', { idempotency_key: 'k'.repeat(255) }, true],
    ['idempotency key of 256', { idempotency_key: 'k'.repeat(256) }, 'idempotency_key'],
    ['camelCase field', { idleTimeoutSeconds: 60 }, 'idleTimeoutSeconds'],
    ['secrets (no such option)', { secrets: { A: 'b' } }, 'secrets'],
  ])('%s', (_name, body, expected) => {
    expect(verdict(createSandboxBody, body)).toBe(expected);
  });

  it('says what to send instead', () => {
    expect(parseSandboxBody(createSandboxBody, { idle_timeout_seconds: 59 })).toEqual({
      ok: false,
      param: 'idle_timeout_seconds',
      message: 'Invalid `idle_timeout_seconds`: send 0 (never) or an integer from 60 to 604800.',
    });
    expect(parseSandboxBody(createSandboxBody, { metadata: { Key: 'v' } })).toMatchObject({
      message: expect.stringMatching(/^Invalid `metadata.Key`: keys are 1 to 40 characters of lowercase/),
    });
    expect(parseSandboxBody(createSandboxBody, { zz: 1 })).toMatchObject({
      message: expect.stringMatching(/^Unknown field `zz`/),
    });
    expect(parseSandboxBody(createSandboxBody, 'x')).toEqual({
      ok: false,
      param: '',
      message: 'Send a JSON object.',
    });
  });
});

describe('update and fork bodies', () => {
  it.each([
    [{}, true],
    [{ metadata: {} }, true],
    [{ metadata: labels(17) }, 'metadata'],
    [{ idle_timeout_seconds: 0 }, true],
    [{ idle_timeout_seconds: 30 }, 'idle_timeout_seconds'],
    [{ size: 'xl' }, 'size'],
    [{ network: { egress: 'none' } }, true],
    [{ network: { deny: Array.from({ length: 101 }, (_, i) => `203.0.113.${i}`) } }, 'network.deny'],
    [{ network: { allow: ['10.1.2.3'] } }, 'network.allow[0]'],
  ])('update %j', (body, expected) => {
    expect(verdict(updateSandboxBody, body)).toBe(expected);
  });

  it('leaves the network out of an update that does not name it', () => {
    expect(parseSandboxBody(updateSandboxBody, { metadata: {} })).toEqual({
      ok: true,
      value: { metadata: {} },
    });
  });

  it.each([
    [{}, true],
    [{ name: 'copy-1' }, true],
    [{ name: 'Copy' }, 'name'],
  ])('fork %j', (body, expected) => {
    expect(verdict(forkSandboxBody, body)).toBe(expected);
  });
});

describe('list query', () => {
  it('reads metadata[key]=value and all=true', () => {
    const query = { 'metadata[team]': 'web', 'metadata[env]': 'prod', all: 'true' };
    expect(parseSandboxBody(listSandboxesQuery, query)).toEqual({
      ok: true,
      value: { metadata: { team: 'web', env: 'prod' }, all: true },
    });
  });

  it.each([
    [{}, { all: false }],
    [{ all: 'false' }, { all: false }],
    [{ metadata: { team: 'web' } }, { metadata: { team: 'web' }, all: false }],
  ])('%j', (query, value) => {
    expect(parseSandboxBody(listSandboxesQuery, query)).toEqual({ ok: true, value });
  });

  it.each([
    [{ all: 'yes' }, 'all'],
    [{ 'metadata[Team]': 'web' }, 'metadata.Team'],
    [{ 'metadata[team]': ['a', 'b'] }, 'metadata.team'],
    [{ status: 'running' }, 'status'],
  ])('refuses %j', (query, param) => {
    expect(verdict(listSandboxesQuery, query)).toBe(param);
  });
});

describe('exec body', () => {
  it('defaults the timeout to 60 seconds', () => {
    expect(parseSandboxBody(execBody, { command: 'ls' })).toEqual({
      ok: true,
      value: { command: 'ls', timeout_seconds: 60 },
    });
  });

  it.each([
    [{ command: 'ls', timeout_seconds: 600 }, true],
    [{ command: 'ls', timeout_seconds: 601 }, 'timeout_seconds'],
    [{ command: 'ls', timeout_seconds: 0 }, 'timeout_seconds'],
    [{ command: '' }, 'command'],
    [{}, 'command'],
    [{ command: 'ls', cwd: '/srv/app' }, true],
    [{ command: 'ls', cwd: 'srv' }, 'cwd'],
    [{ command: 'ls', env: { NODE_ENV: 'test', _X1: '' } }, true],
    [{ command: 'ls', env: { '1A': 'x' } }, 'env["1A"]'],
  ])('%j', (body, expected) => {
    expect(verdict(execBody, body)).toBe(expected);
  });

  it('names a missing field', () => {
    expect(parseSandboxBody(execBody, {})).toMatchObject({
      message: 'Missing `command`: send a shell command.',
    });
  });
});

describe('file query', () => {
  it.each([
    [{ path: '/root/a.txt' }, true],
    [{ path: 'a.txt' }, 'path'],
    [{ path: `/${'a'.repeat(4095)}` }, true],
    [{ path: `/${'a'.repeat(4096)}` }, 'path'],
    [{}, 'path'],
  ])('%j', (query, expected) => {
    expect(verdict(fileQuery, query)).toBe(expected);
  });
});

describe('token mint body', () => {
  it('defaults to 900 seconds and no origins', () => {
    expect(parseSandboxBody(createTokenBody, { abilities: ['view'] })).toEqual({
      ok: true,
      value: { abilities: ['view'], expires_in: 900, origins: [] },
    });
  });

  it('normalizes origins', () => {
    const body = {
      abilities: ['control'],
      origins: ['HTTPS://App.Example.com/', 'https://app.example.com:443'],
    };
    expect(parseSandboxBody(createTokenBody, body)).toMatchObject({
      ok: true,
      value: { abilities: ['control'], origins: ['https://app.example.com'] },
    });
  });

  it.each([
    ['expires_in 59', { expires_in: 59 }, 'expires_in'],
    ['expires_in 60', { expires_in: 60 }, true],
    ['expires_in 3600', { expires_in: 3600 }, true],
    ['expires_in 3601', { expires_in: 3601 }, 'expires_in'],
    ['10 origins', { origins: origins(10) }, true],
    ['11 origins', { origins: origins(11) }, 'origins'],
    [
      'an origin with a path',
      { origins: ['https://a.example.com', 'https://b.example.com/app'] },
      'origins[1]',
    ],
    ['an origin with a query', { origins: ['https://a.example.com?x=1'] }, 'origins[0]'],
    ['an origin with a port', { origins: ['http://localhost:3000'] }, true],
    ['no abilities', { abilities: [] }, 'abilities'],
    ['an unknown ability', { abilities: ['admin'] }, 'abilities[0]'],
    ['view', { abilities: ['view'] }, true],
    ['control', { abilities: ['control'] }, true],
    ['both abilities', { abilities: ['view', 'control'] }, 'abilities'],
    ['both abilities, control first', { abilities: ['control', 'view'] }, 'abilities'],
    ['a duplicate', { abilities: ['view', 'view'] }, 'abilities'],
    ['an ability as a bare string', { abilities: 'control' }, 'abilities'],
  ])('%s', (_name, body, expected) => {
    expect(verdict(createTokenBody, { abilities: ['control'], ...body })).toBe(expected);
  });
});
