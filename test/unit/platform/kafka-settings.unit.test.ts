import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../platform/config.ts';

// ORRERY_KAFKA_*: what the platform connects with, and a clear refusal, naming the variable and
// what it expects, for any value it cannot use.

const dir = mkdtempSync(join(tmpdir(), 'orrery-kafka-settings-'));
const pem = (name: string, block: string) => {
  const path = join(dir, name);
  writeFileSync(path, `-----BEGIN ${block}-----\nAAAA\n-----END ${block}-----\n`);
  return path;
};
const ca = pem('ca.pem', 'CERTIFICATE');
const cert = pem('client.pem', 'CERTIFICATE');
const key = pem('client.key', 'PRIVATE KEY');
const notPem = join(dir, 'not.pem');
writeFileSync(notPem, 'hello');

const kafka = (environment: Record<string, string>) => parseConfig(environment).kafka;
const refusal = (environment: Record<string, string>) => {
  try {
    parseConfig(environment);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the configuration was accepted');
};

describe('ORRERY_KAFKA_* accepted', () => {
  it('defaults to the local stack: one broker, plaintext, the three timeouts', () => {
    expect(kafka({})).toMatchObject({
      brokers: ['127.0.0.1:19092'],
      tls: undefined,
      sasl: undefined,
      timeouts: { requestMs: 1000, deliveryMs: 1500, callerMs: 1700 },
    });
  });

  it('bootstraps from every node of a three-node local stack unless brokers are given', () => {
    expect(kafka({ ORRERY_STACK_KAFKA_NODES: '3' }).brokers).toEqual([
      '127.0.0.1:19092',
      '127.0.0.1:19102',
      '127.0.0.1:19112',
    ]);
    expect(kafka({ ORRERY_STACK_KAFKA_NODES: '3', ORRERY_KAFKA_BROKERS: 'kafka:9092' }).brokers).toEqual([
      'kafka:9092',
    ]);
  });

  it('takes several bootstrap brokers: names, IPv4, bracketed IPv6', () => {
    expect(
      kafka({ ORRERY_KAFKA_BROKERS: 'b-1.kafka.example.com:9094, 10.0.0.2:9092,[::1]:9093' }).brokers,
    ).toEqual(['b-1.kafka.example.com:9094', '10.0.0.2:9092', '[::1]:9093']);
  });

  it('TLS with the system authorities, with a CA file, and with a client certificate', () => {
    expect(kafka({ ORRERY_KAFKA_TLS: 'true' }).tls).toEqual({
      ca: undefined,
      certificate: undefined,
      key: undefined,
      keyPassword: undefined,
    });
    expect(kafka({ ORRERY_KAFKA_TLS_CA: ca }).tls?.ca).toContain('BEGIN CERTIFICATE');
    const mutual = kafka({ ORRERY_KAFKA_TLS_CERT: cert, ORRERY_KAFKA_TLS_KEY: key }).tls;
    expect(mutual?.certificate).toContain('BEGIN CERTIFICATE');
    expect(mutual?.key).toContain('BEGIN PRIVATE KEY');
  });

  it.each(['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'])(
    'SASL %s with a username and password',
    (mechanism) => {
      expect(
        kafka({
          ORRERY_KAFKA_SASL_MECHANISM: mechanism,
          ORRERY_KAFKA_SASL_USERNAME: 'orrery',
          ORRERY_KAFKA_SASL_PASSWORD: 'secret',
        }).sasl,
      ).toEqual({ mechanism, username: 'orrery', password: 'secret' });
    },
  );
});

describe('ORRERY_KAFKA_* refused, naming the variable and what it expects', () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    [
      'a broker without a port',
      { ORRERY_KAFKA_BROKERS: 'kafka.example.com' },
      /ORRERY_KAFKA_BROKERS: "kafka.example.com" is not host:port/,
    ],
    [
      'a port out of range',
      { ORRERY_KAFKA_BROKERS: '127.0.0.1:70000' },
      /ORRERY_KAFKA_BROKERS: "127.0.0.1:70000" is not host:port/,
    ],
    [
      'an empty list entry',
      { ORRERY_KAFKA_BROKERS: '127.0.0.1:9092,' },
      /ORRERY_KAFKA_BROKERS: "" is not host:port/,
    ],
    ['TLS neither true nor false', { ORRERY_KAFKA_TLS: 'yes' }, /ORRERY_KAFKA_TLS: use true or false/],
    [
      'a CA file that does not exist',
      { ORRERY_KAFKA_TLS_CA: join(dir, 'missing.pem') },
      /ORRERY_KAFKA_TLS_CA: cannot read .*missing\.pem/,
    ],
    [
      'a CA file that is not PEM',
      { ORRERY_KAFKA_TLS_CA: notPem },
      /ORRERY_KAFKA_TLS_CA: .*not\.pem is not a PEM file with a CERTIFICATE/,
    ],
    [
      'a key where the certificate goes',
      { ORRERY_KAFKA_TLS_CERT: key, ORRERY_KAFKA_TLS_KEY: key },
      /ORRERY_KAFKA_TLS_CERT: .* is not a PEM file with a CERTIFICATE/,
    ],
    [
      'a certificate without its key',
      { ORRERY_KAFKA_TLS_CERT: cert },
      /ORRERY_KAFKA_TLS_KEY: a client certificate needs both/,
    ],
    [
      'a key without its certificate',
      { ORRERY_KAFKA_TLS_KEY: key },
      /ORRERY_KAFKA_TLS_CERT: a client certificate needs both/,
    ],
    [
      'an unknown SASL mechanism',
      { ORRERY_KAFKA_SASL_MECHANISM: 'GSSAPI' },
      /ORRERY_KAFKA_SASL_MECHANISM: use one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512/,
    ],
    [
      'SASL without a password',
      { ORRERY_KAFKA_SASL_MECHANISM: 'PLAIN', ORRERY_KAFKA_SASL_USERNAME: 'u' },
      /ORRERY_KAFKA_SASL_PASSWORD: required with a SASL mechanism/,
    ],
    [
      'a username without a mechanism',
      { ORRERY_KAFKA_SASL_USERNAME: 'u' },
      /ORRERY_KAFKA_SASL_USERNAME: set only with ORRERY_KAFKA_SASL_MECHANISM/,
    ],
    [
      'a timeout that is not a number',
      { ORRERY_KAFKA_REQUEST_TIMEOUT_MS: 'soon' },
      /ORRERY_KAFKA_REQUEST_TIMEOUT_MS:/,
    ],
    [
      'a delivery shorter than a request',
      { ORRERY_KAFKA_REQUEST_TIMEOUT_MS: '8000', ORRERY_KAFKA_DELIVERY_TIMEOUT_MS: '5000' },
      /ORRERY_KAFKA_DELIVERY_TIMEOUT_MS: at least ORRERY_KAFKA_REQUEST_TIMEOUT_MS \(8000\)/,
    ],
    [
      'a caller that gives up before a delivery can',
      { ORRERY_PUBLISH_TIMEOUT_MS: '1000' },
      /ORRERY_PUBLISH_TIMEOUT_MS: at least ORRERY_KAFKA_DELIVERY_TIMEOUT_MS \(1500\)/,
    ],
  ];
  it.each(cases)('%s', (_, environment, message) => {
    const text = refusal(environment);
    expect(text).toMatch(/^Invalid configuration, fix these environment variables: /);
    expect(text).toMatch(message);
  });
});
