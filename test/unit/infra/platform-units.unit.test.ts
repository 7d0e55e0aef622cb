import { describe, expect, it } from 'vitest';
import { platformUnits } from '../../../infra/platform-units.ts';
import { parseConfig } from '../../../platform/config.ts';

// What `npm start` runs (infra/platform-units.ts): one of each by default, or a local fleet.

const fleet = {
  machine: 'vm',
  apiPort: 8080,
  hostPort: 8092,
  sandboxDir: '.sandboxes',
  externalStack: false,
};

describe('the processes npm start supervises', () => {
  it('are one API, the consumers, the jobs, one sandbox host and the watcher by default', () => {
    const units = platformUnits({ ...fleet, apiReplicas: 1, sandboxHosts: 1 });
    expect(units.map((unit) => unit.name)).toEqual(['api', 'consumers', 'jobs', 'sandbox-host', 'stack']);
    expect(units.find((unit) => unit.name === 'sandbox-host')?.env).toEqual({
      ORRERY_SANDBOX_HOST_PORT: '8092',
      ORRERY_SANDBOX_HOST_URL: 'http://127.0.0.1:8092',
      ORRERY_SANDBOX_DIR: '.sandboxes',
      ORRERY_SANDBOX_HOST_API_URL: 'http://127.0.0.1:8080',
      ORRERY_SANDBOX_HOST_NAME: 'vm',
    });
  });

  it('with two replicas and two hosts: APIs on 8080 and 8081, hosts on 8092 and 8093 with state of their own', () => {
    const units = platformUnits({ ...fleet, apiReplicas: 2, sandboxHosts: 2, externalStack: true });
    expect(units.map((unit) => unit.name)).toEqual([
      'api',
      'api-2',
      'consumers',
      'jobs',
      'sandbox-host',
      'sandbox-host-2',
    ]);
    expect(units.map((unit) => unit.env.ORRERY_API_PORT).filter(Boolean)).toEqual(['8080', '8081']);
    const hosts = units.filter((unit) => unit.entry === 'sandbox-host/main.ts');
    expect(hosts.map((unit) => unit.env.ORRERY_SANDBOX_DIR)).toEqual(['.sandboxes', '.sandboxes-2']);
    expect(hosts.map((unit) => unit.env.ORRERY_SANDBOX_HOST_PORT)).toEqual(['8092', '8093']);
    expect(hosts.map((unit) => unit.env.ORRERY_SANDBOX_HOST_NAME)).toEqual(['vm', 'vm-2']);
    // Each host announces itself to either replica, whichever answers.
    for (const host of hosts)
      expect(host.env.ORRERY_SANDBOX_HOST_API_URL).toBe('http://127.0.0.1:8080,http://127.0.0.1:8081');
  });

  it('reads the counts from ORRERY_API_REPLICAS and ORRERY_SANDBOX_HOSTS, one and one by default', () => {
    expect(parseConfig({}).fleet.local).toEqual({ apiReplicas: 1, sandboxHosts: 1 });
    expect(parseConfig({ ORRERY_API_REPLICAS: '2', ORRERY_SANDBOX_HOSTS: '3' }).fleet.local).toEqual({
      apiReplicas: 2,
      sandboxHosts: 3,
    });
    expect(() => parseConfig({ ORRERY_SANDBOX_HOSTS: '0' })).toThrow(/ORRERY_SANDBOX_HOSTS/);
    expect(() => parseConfig({ ORRERY_SANDBOX_HOST_API_URL: 'http://a:1,not a url' })).toThrow(
      /ORRERY_SANDBOX_HOST_API_URL/,
    );
    expect(() => parseConfig({ ORRERY_HOST_SECRET: 'short' })).toThrow(/ORRERY_HOST_SECRET/);
  });
});
