import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  clickhouseConfiguration,
  kafkaConfiguration,
  type PartConfiguration,
  postgresConfiguration,
  registryConfiguration,
} from '../../../packages/testcontainers/src/configuration.ts';
import { officialImages, stackEnvironment } from '../../../packages/testcontainers/src/stack.ts';

// infra/compose.yaml runs the stack with @orrery/testcontainers' configuration: the same
// variables, command and settings files for each part, the official images unless overridden,
// and the Orrery image's processes with the same ORRERY_* settings.
const infra = resolve(import.meta.dirname, '../../../infra');
// `${NAME:-default}` as compose reads it when NAME is unset.
const unset = (text: string) => text.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');
// Merge keys (`<<: *orrery`), as compose reads them.
const compose = parse(unset(readFileSync(resolve(infra, 'compose.yaml'), 'utf8')), { merge: true });

interface Service {
  image: string;
  environment?: Record<string, string>;
  command?: string[];
  volumes?: string[];
}
const service = (name: string): Service => compose.services[name];

/** The files a service mounts, by the path inside its container. */
const mounted = (name: string) =>
  Object.fromEntries(
    (service(name).volumes ?? []).map((volume) => {
      const [source = '', target] = volume.split(':');
      return [target, readFileSync(resolve(infra, source), 'utf8')];
    }),
  );

const parts: [string, PartConfiguration][] = [
  ['postgres', postgresConfiguration],
  ['clickhouse', clickhouseConfiguration],
  // Published on the local stack's Kafka port, 19092.
  ['kafka', kafkaConfiguration('127.0.0.1:19092')],
  ['registry', registryConfiguration],
];

describe('infra/compose.yaml', () => {
  it.each(parts)('configures %s as the module does', (name, configuration) => {
    expect(service(name).environment ?? {}).toEqual(configuration.environment);
    expect(service(name).command).toEqual(configuration.command);
    expect(mounted(name)).toEqual(
      Object.fromEntries((configuration.files ?? []).map((file) => [file.target, file.content])),
    );
  });

  it('runs the official images unless told otherwise, and the same Orrery image', () => {
    for (const name of ['postgres', 'clickhouse', 'kafka', 'registry'] as const)
      expect(service(name).image).toBe(officialImages[name]);
    for (const name of ['provision', 'api', 'consumers', 'jobs'])
      expect(service(name).image).toBe(officialImages.orrery);
  });

  it("runs the platform's processes as the module does, after provisioning", () => {
    for (const name of ['provision', 'api', 'consumers', 'jobs']) {
      expect(service(name).command).toEqual([name]);
      expect(service(name).environment).toMatchObject({ ...stackEnvironment, ORRERY_DEFAULT_MODEL: 'off' });
    }
    for (const name of ['api', 'consumers', 'jobs'])
      expect(compose.services[name].depends_on).toEqual({
        provision: { condition: 'service_completed_successfully' },
      });
  });
});
