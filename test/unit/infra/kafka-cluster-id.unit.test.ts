import { describe, expect, it } from 'vitest';
import { newClusterId } from '../../../infra/stack/kafka.ts';

// One id in 64 starts with '-' when drawn plainly; `kafka-storage format -t -abc…` then fails
// with "expected one argument" (seen in CI). 10,000 draws meet that case ~156 times.
describe('newClusterId', () => {
  it('never starts with a dash, and is 16 bytes in base64url', () => {
    const ids = Array.from({ length: 10_000 }, () => newClusterId());
    expect(ids.filter((id) => id.startsWith('-'))).toEqual([]);
    for (const id of ids) expect(Buffer.from(id, 'base64url')).toHaveLength(16);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
