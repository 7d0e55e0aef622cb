import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { describe, expect, it } from 'vitest';
import { isRegistryUnavailable } from '../../../consumers/errors.ts';

// A message the registry could not help decode is decoded again later; one that is malformed,
// or names a schema the registry does not have, goes to the dead-letter topic.

/** The registry client's error for a failed request (its errorMiddleware's ResponseError). */
function responseError(status: number): Error {
  const error = new Error(`Confluent_Schema_Registry - Error, status ${status}`) as Error & {
    status: number;
  };
  error.name = 'ResponseError';
  error.status = status;
  return error;
}

describe('isRegistryUnavailable', () => {
  it('is true for a registry answering 5xx, a network failure (status 400) and a refused connection', () => {
    expect(isRegistryUnavailable(responseError(500))).toBe(true);
    expect(isRegistryUnavailable(responseError(503))).toBe(true);
    expect(isRegistryUnavailable(responseError(400))).toBe(true);
    expect(
      isRegistryUnavailable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
    ).toBe(true);
  });

  it('is false for a malformed message, a schema the registry does not have, and a protobuf error', async () => {
    // The client refuses a wrong magic byte before it asks the registry anything.
    const malformed = await new SchemaRegistry({ host: 'http://127.0.0.1:1' })
      .decode(Buffer.from([7, 0, 0, 0, 1, 2]))
      .catch((error: unknown) => error);
    expect((malformed as Error).name).toBe('ConfluentSchemaRegistryArgumentError');
    expect(isRegistryUnavailable(malformed)).toBe(false);
    expect(isRegistryUnavailable(responseError(404))).toBe(false);
    expect(isRegistryUnavailable(new RangeError('index out of range: 12 + 10 > 12'))).toBe(false);
    expect(isRegistryUnavailable('not an error')).toBe(false);
  });
});
