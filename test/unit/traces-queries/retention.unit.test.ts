import { describe, expect, it } from 'vitest';
import { isPartitionExpired, partitionDay } from '../../../jobs/span-retention.ts';

// 001, Limits: retention is 30 days from the moment the trace's first span was received. A day's
// partition goes once its last possible trace is past that: at the day's end plus 30 days.
describe('span partition retention', () => {
  it.each([
    ['20261001', '2026-10-31T23:59:59.999Z', false],
    ['20261001', '2026-11-01T00:00:00.000Z', true],
    ['20261001', '2026-12-25T00:00:00.000Z', true],
    ['20261021', '2026-11-20T12:00:00.000Z', false],
    ['20260131', '2026-03-02T23:59:59.000Z', false],
    ['20260131', '2026-03-03T00:00:00.000Z', true],
    ['20261122', '2026-11-22T00:00:00.000Z', false],
  ])('partition %s at %s expired: %s', (partition, now, expired) => {
    expect(isPartitionExpired(partition, new Date(now))).toBe(expired);
  });

  it.each(['tuple()', '2026101', '20261301', '20260230', 'all'])('never drops a partition named %s', (id) => {
    expect(partitionDay(id)).toBeUndefined();
    expect(isPartitionExpired(id, new Date('2100-01-01T00:00:00Z'))).toBe(false);
  });
});
