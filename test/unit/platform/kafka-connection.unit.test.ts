import { describe, expect, it } from 'vitest';
import { librdkafkaConfig, longestFetchWaitMs } from '../../../platform/kafka.ts';
import type { KafkaSettings } from '../../../platform/kafka-settings.ts';

// ORRERY_KAFKA_* as librdkafka reads them: the security protocol from TLS and SASL together, the
// PEM texts, the SCRAM or PLAIN credentials, and the request timeout on the socket.

const plain: KafkaSettings = {
  brokers: ['b1:9092', 'b2:9092'],
  timeouts: { requestMs: 4000, deliveryMs: 8000, callerMs: 10_000 },
};
const sasl = { mechanism: 'SCRAM-SHA-512' as const, username: 'orrery', password: 'secret' };

describe('librdkafkaConfig', () => {
  it.each([
    ['plaintext', plain, 'plaintext'],
    ['TLS', { ...plain, tls: {} }, 'ssl'],
    ['SASL', { ...plain, sasl }, 'sasl_plaintext'],
    ['SASL over TLS', { ...plain, tls: {}, sasl }, 'sasl_ssl'],
  ] as const)('%s → security.protocol %s', (_, settings, protocol) => {
    expect(librdkafkaConfig(settings, 'orrery-api')['security.protocol']).toBe(protocol);
  });

  it('names every bootstrap broker and the client', () => {
    expect(librdkafkaConfig(plain, 'orrery-api')).toMatchObject({
      'bootstrap.servers': 'b1:9092,b2:9092',
      'client.id': 'orrery-api',
      'socket.timeout.ms': 4000,
    });
  });

  it('never times a request out before a consumer’s longest fetch could answer', () => {
    const short = { ...plain, timeouts: { requestMs: 1000, deliveryMs: 1500, callerMs: 1700 } };
    expect(librdkafkaConfig(short, 'orrery-api')['socket.timeout.ms']).toBe(longestFetchWaitMs + 1000);
  });

  it('passes the PEM texts and the SASL credentials, and nothing it was not given', () => {
    const config = librdkafkaConfig(
      { ...plain, tls: { ca: 'CA PEM', certificate: 'CERT PEM', key: 'KEY PEM', keyPassword: 'pw' }, sasl },
      'orrery-api',
    );
    expect(config).toMatchObject({
      'ssl.ca.pem': 'CA PEM',
      'ssl.certificate.pem': 'CERT PEM',
      'ssl.key.pem': 'KEY PEM',
      'ssl.key.password': 'pw',
      'sasl.mechanisms': 'SCRAM-SHA-512',
      'sasl.username': 'orrery',
      'sasl.password': 'secret',
    });
    const bare = librdkafkaConfig(plain, 'orrery-api');
    for (const key of [
      'ssl.ca.pem',
      'ssl.certificate.pem',
      'ssl.key.pem',
      'sasl.mechanisms',
      'sasl.username',
    ])
      expect(bare).not.toHaveProperty(key);
  });
});
