import { describe, expect, it } from 'vitest';
import { kafkaConfiguration } from '../src/configuration.js';
import { chooseImages, localImages, officialImages } from '../src/stack.js';

describe('the default images', () => {
  const parts = ['postgres', 'clickhouse', 'kafka', 'registry'] as const;

  it('are the local part images when the engine has all four', () => {
    const present = new Set(parts.map((part) => localImages[part]));
    expect(chooseImages((image) => present.has(image))).toBe(localImages);
  });

  it('are the official images when any local part image is missing', () => {
    for (const missing of parts) {
      const present = new Set(parts.filter((part) => part !== missing).map((part) => localImages[part]));
      expect(chooseImages((image) => present.has(image))).toBe(officialImages);
    }
    expect(chooseImages(() => false)).toBe(officialImages);
  });

  it('run the same Orrery image either way, since Orrery has no published one', () => {
    expect(officialImages.orrery).toBe(localImages.orrery);
  });
});

describe('kafkaConfiguration', () => {
  it('has clients on the network reach the broker as kafka:9092', () => {
    const { environment } = kafkaConfiguration();
    expect(environment.KAFKA_LISTENERS).toBe('PLAINTEXT://:9092,CONTROLLER://:9093');
    expect(environment.KAFKA_ADVERTISED_LISTENERS).toBe('PLAINTEXT://kafka:9092');
    expect(environment.KAFKA_LISTENER_SECURITY_PROTOCOL_MAP).toBe('CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT');
  });

  it('adds a listener that hands clients on the host the address they were given', () => {
    const { environment } = kafkaConfiguration('127.0.0.1:40123');
    expect(environment.KAFKA_LISTENERS).toBe('PLAINTEXT://:9092,CONTROLLER://:9093,HOST://:9094');
    expect(environment.KAFKA_ADVERTISED_LISTENERS).toBe('PLAINTEXT://kafka:9092,HOST://127.0.0.1:40123');
    expect(environment.KAFKA_LISTENER_SECURITY_PROTOCOL_MAP).toBe(
      'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,HOST:PLAINTEXT',
    );
  });
});
