import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../platform/config.ts';

describe('ORRERY_STACK_DIR', () => {
  it('is under the working directory when relative, and where it says when absolute', () => {
    expect(parseConfig({}).stackDir).toBe(join(process.cwd(), '.stack'));
    expect(parseConfig({ ORRERY_STACK_DIR: 'elsewhere/stack' }).stackDir).toBe(
      join(process.cwd(), 'elsewhere/stack'),
    );
    expect(parseConfig({ ORRERY_STACK_DIR: '/var/tmp/orrery-stack' }).stackDir).toBe('/var/tmp/orrery-stack');
  });
});

describe('the default model (ORRERY_MODELS unset)', () => {
  it('is served under smollm2-135m for titles and previews, at the local part on the loopback', () => {
    const { models, localModel } = parseConfig({}).inference;
    expect(localModel).toEqual({ name: 'smollm2-135m', port: 18082, threads: 1, contextTokens: 8192 });
    expect(models).toEqual([
      {
        name: 'smollm2-135m',
        writes: ['titles', 'previews'],
        baseUrl: 'http://127.0.0.1:18082/v1',
        timeoutMs: 120_000,
        retries: 1,
        maxTokens: 64,
        answerPrefix: true,
        extraBody: { dry_multiplier: 0.8 },
      },
    ]);
  });

  it('takes its port, threads and context from ORRERY_DEFAULT_MODEL_*', () => {
    const { models, localModel } = parseConfig({
      ORRERY_DEFAULT_MODEL_PORT: '18999',
      ORRERY_DEFAULT_MODEL_THREADS: '2',
      ORRERY_DEFAULT_MODEL_CONTEXT: '4096',
    }).inference;
    expect(localModel).toEqual({ name: 'smollm2-135m', port: 18999, threads: 2, contextTokens: 4096 });
    expect(models.map((model) => model.baseUrl)).toEqual(['http://127.0.0.1:18999/v1']);
  });

  it('is replaced by ORRERY_MODELS, even an empty list, and the stack then runs no model', () => {
    const replaced = parseConfig({
      ORRERY_MODELS: '[{"name":"scribe","writes":["titles"],"baseUrl":"http://127.0.0.1:8000/v1"}]',
    }).inference;
    expect(replaced.models.map((model) => model.name)).toEqual(['scribe']);
    expect(replaced.localModel).toBeUndefined();
    expect(parseConfig({ ORRERY_MODELS: '[]' }).inference).toEqual({ models: [], localModel: undefined });
  });

  it('is kept beside ORRERY_MODELS with ORRERY_DEFAULT_MODEL=on, and the stack runs it', () => {
    const both = parseConfig({
      ORRERY_MODELS: '[{"name":"scribe","writes":["titles"],"baseUrl":"http://10.0.0.5:8000/v1"}]',
      ORRERY_DEFAULT_MODEL: 'on',
    }).inference;
    expect(both.models.map((model) => model.name)).toEqual(['scribe', 'smollm2-135m']);
    expect(both.localModel?.port).toBe(18082);
  });

  it('is run by the stack whenever a model of ORRERY_MODELS points at its address', () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const listed = parseConfig({
        ORRERY_MODELS: `[{"name":"small","writes":["previews"],"baseUrl":"http://${host}:18082/v1"}]`,
      }).inference;
      expect(listed.models.map((model) => model.name)).toEqual(['small']);
      expect(listed.localModel?.port).toBe(18082);
    }
    const elsewhere = '[{"name":"small","writes":["previews"],"baseUrl":"http://127.0.0.1:18083/v1"}]';
    expect(parseConfig({ ORRERY_MODELS: elsewhere }).inference.localModel).toBeUndefined();
  });

  it('refuses ORRERY_MODELS naming it beside ORRERY_DEFAULT_MODEL=on, saying what to change', () => {
    const named = '[{"name":"smollm2-135m","writes":["titles"],"baseUrl":"http://10.0.0.5:8000/v1"}]';
    expect(() => parseConfig({ ORRERY_MODELS: named, ORRERY_DEFAULT_MODEL: 'on' })).toThrow(
      /names smollm2-135m, which ORRERY_DEFAULT_MODEL=on adds beside it; rename yours, or set ORRERY_DEFAULT_MODEL=off/,
    );
  });

  it('is left out with ORRERY_DEFAULT_MODEL=off', () => {
    expect(parseConfig({ ORRERY_DEFAULT_MODEL: 'off' }).inference).toEqual({
      models: [],
      localModel: undefined,
    });
  });

  it.each([
    ['ORRERY_DEFAULT_MODEL', 'no', /ORRERY_DEFAULT_MODEL: use on or off/],
    ['ORRERY_DEFAULT_MODEL_PORT', '70000', /ORRERY_DEFAULT_MODEL_PORT/],
    ['ORRERY_DEFAULT_MODEL_THREADS', '0', /ORRERY_DEFAULT_MODEL_THREADS/],
    ['ORRERY_DEFAULT_MODEL_CONTEXT', '100000', /ORRERY_DEFAULT_MODEL_CONTEXT/],
  ])('refuses %s=%s', (variable, value, message) => {
    expect(() => parseConfig({ [variable]: value })).toThrow(message);
  });
});
