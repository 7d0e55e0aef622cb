import { describe, expect, it } from 'vitest';
import { limits } from '../../../domain/tracing/limits.ts';

describe('limits (001, Limits table)', () => {
  it.each([
    ['requestBytesSent', 4 * 1024 * 1024],
    ['requestBytesUncompressed', 16 * 1024 * 1024],
    ['monthlySpans', 1_000_000],
    ['monthlyBytes', 5 * 1024 * 1024 * 1024],
    ['spansPerTrace', 10_000],
    ['spanNameBytes', 256],
    ['inputOutputBytes', 128 * 1024],
    ['stringBytes', 8 * 1024],
    ['attributesPerSpan', 128],
    ['eventsPerSpan', 128],
    ['linksPerSpan', 32],
    ['resourceAttributesBytes', 4 * 1024],
    ['spanBytes', 384 * 1024],
    ['retentionDays', 30],
  ] as const)('%s is %d', (name, value) => {
    expect(limits[name]).toBe(value);
  });
});
