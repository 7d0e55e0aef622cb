import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { checkObjects, ensureChecker, ensureHelm, helm } from '../../harness/helm.ts';

// The Helm chart (deploy/helm/orrery), offline: no cluster is reachable here, so it is linted
// with its values schema, rendered, and every rendered object is decoded strictly into
// Kubernetes' own Go types (deploy/helm/check), with the default values and with every option
// on (test/fixtures/helm/every-option.yaml). Then what a person relies on is read from the
// rendered objects. Nothing here needs the stack.

const chart = 'deploy/helm/orrery';
const everyOptionFile = 'test/fixtures/helm/every-option.yaml';
const everyOption = parse(readFileSync(resolve(import.meta.dirname, '../../..', everyOptionFile), 'utf8'));
const log = (line: string) => process.stderr.write(`[helm] ${line}\n`);

interface SecretKeyRef {
  name: string;
  key: string;
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: SecretKeyRef; fieldRef?: { fieldPath: string } };
}
interface Probe {
  httpGet?: { path: string; port: number | string };
}
interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: EnvVar[];
  ports?: Array<{ name?: string; containerPort: number }>;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  securityContext?: Record<string, unknown>;
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
interface PodSpec {
  containers: Container[];
  serviceAccountName?: string;
  nodeSelector?: Record<string, string>;
  securityContext?: Record<string, unknown>;
  volumes?: Array<{ name: string; hostPath?: { path: string }; secret?: { secretName: string } }>;
}
interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: {
    replicas?: number;
    selector?: Record<string, string> | { matchLabels: Record<string, string> };
    template?: { metadata: { labels: Record<string, string> }; spec: PodSpec };
    scaleTargetRef?: { kind: string; name: string };
    minReplicas?: number;
    maxReplicas?: number;
    ports?: Array<{ port: number; targetPort: string }>;
  };
  data?: Record<string, string>;
}

interface Rendered {
  text: string;
  objects: KubeObject[];
}

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(2)} s`;

async function template(...values: string[]): Promise<Rendered> {
  const started = performance.now();
  const result = await helm('template', 'orrery', chart, '--namespace', 'orrery', ...values);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  log(`helm template ${values.join(' ') || '(defaults)'}: ${seconds(started)}`);
  // Read as Kubernetes reads it: YAML 1.1, where an unquoted off is false.
  const objects = parseAllDocuments(result.stdout, { version: '1.1' })
    .map((document) => document.toJS() as KubeObject | null)
    .filter((object): object is KubeObject => object !== null);
  return { text: result.stdout, objects };
}

function find(rendered: Rendered, kind: string, name: string): KubeObject {
  const found = rendered.objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} among the rendered objects`);
  return found;
}

/** Each process's pod spec and its one container, by the component label. */
function processes(rendered: Rendered): Map<string, { pod: PodSpec; container: Container }> {
  const found = new Map<string, { pod: PodSpec; container: Container }>();
  for (const object of rendered.objects) {
    const template = object.spec?.template;
    if (!template) continue;
    expect(template.spec.containers).toHaveLength(1);
    const component = template.metadata.labels['app.kubernetes.io/component'] ?? '';
    found.set(component, { pod: template.spec, container: template.spec.containers[0]! });
  }
  return found;
}

const env = (container: Container, name: string) => container.env?.find((variable) => variable.name === name);

let defaults: Rendered;
let everything: Rendered;

beforeAll(async () => {
  const built = await ensureHelm(log);
  if (built > 0) log(`helm built in ${(built / 1000).toFixed(0)} s`);
  const started = performance.now();
  await ensureChecker();
  log(`the object checker built (or found current) in ${seconds(started)}`);
  defaults = await template();
  everything = await template('-f', everyOptionFile);
}, 25 * 60_000);

describe.each([
  ['the default values', [] as string[]],
  ['every option on', ['-f', everyOptionFile]],
])('deploy/helm/orrery with %s', (_name, values) => {
  it('passes helm lint --strict, its values schema included', async () => {
    const started = performance.now();
    const result = await helm('lint', '--strict', chart, ...values);
    log(`helm lint --strict ${values.join(' ') || '(defaults)'}: ${seconds(started)}`);
    expect(result.stdout).toContain('0 chart(s) failed');
    expect(result.code).toBe(0);
  });

  it("renders only objects that Kubernetes' own types take, strictly", async () => {
    const rendered = values.length === 0 ? defaults : everything;
    const started = performance.now();
    const result = await checkObjects(rendered.text);
    log(`checked ${rendered.objects.length} objects in ${seconds(started)}`);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // Every document was read: none skipped as empty or unknown.
    expect(result.stdout.trim().split('\n')).toHaveLength(rendered.objects.length);
  });
});

describe('the checks can fail', () => {
  it('refuses values the schema does not allow: a count in words, a misspelt name', async () => {
    const inWords = await helm('lint', '--strict', chart, '--set', 'api.replicas=two');
    expect(inWords.code).toBe(1);
    expect(inWords.stdout).toContain("at '/api/replicas': got string, want integer");
    const misspelt = await helm('template', 'orrery', chart, '--set', 'api.replicass=2');
    expect(misspelt.code).toBe(1);
    expect(misspelt.stderr).toContain("additional properties 'replicass' not allowed");
    const mechanism = await helm('template', 'orrery', chart, '--set', 'kafka.sasl.mechanism=SCRAM');
    expect(mechanism.code).toBe(1);
    expect(mechanism.stderr).toContain('/kafka/sasl/mechanism');
    const hopCount = await helm('template', 'orrery', chart, '--set-string', 'api.trustProxy=1');
    expect(hopCount.code).toBe(1);
    expect(hopCount.stderr).toContain('/api/trustProxy');
  });

  it('refuses values that render but cannot run, as platform/kafka-settings.ts would at start-up', async () => {
    const refusals: Array<[string[], string]> = [
      [['--set', 'kafka.tls.ca=ca.crt'], 'used only with kafka.tls.enabled: true'],
      [
        [
          '--set',
          'kafka.tls.enabled=true',
          '--set',
          'kafka.tls.secretName=t',
          '--set',
          'kafka.tls.clientCert=c',
        ],
        'needs both clientCert and clientKey',
      ],
      [['--set', 'kafka.sasl.mechanism=PLAIN'], 'kafka.sasl.existingSecret'],
      [['--set', 'postgres.url='], 'give postgres.url, or postgres.existingSecret'],
    ];
    for (const [values, message] of refusals) {
      const result = await helm('template', 'orrery', chart, ...values);
      expect(result.code, values.join(' ')).toBe(1);
      expect(result.stderr).toContain(message);
    }
  });

  it('refuses a rendered object with a misspelt field, a wrong type, a wrong case, an unknown version or a selector that misses its pods', async () => {
    const api = find(defaults, 'Deployment', 'orrery-api');
    const check = async (change: (object: KubeObject & Record<string, unknown>) => void) => {
      const object = structuredClone(api) as KubeObject & Record<string, unknown>;
      change(object);
      return checkObjects(stringify(object, { version: '1.1' }));
    };
    const container = (object: KubeObject) =>
      object.spec!.template!.spec.containers[0]! as Container & Record<string, unknown>;

    // The object as rendered passes, so each refusal below is its change's.
    expect((await check(() => {})).code).toBe(0);

    const misspelt = await check((object) => {
      const port = container(object).ports![0]! as Record<string, unknown>;
      port.containerPortt = port.containerPort;
      delete port.containerPort;
    });
    expect(misspelt.code).toBe(1);
    expect(misspelt.stderr).toContain(
      'unknown field "spec.template.spec.containers[0].ports[0].containerPortt"',
    );

    const wrongType = await check((object) => {
      (object.spec as Record<string, unknown>).replicas = 'two';
    });
    expect(wrongType.code).toBe(1);
    expect(wrongType.stderr).toContain(
      'cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    );

    // encoding/json alone would take ReadinessProbe for readinessProbe; the API server does not.
    const wrongCase = await check((object) => {
      const probed = container(object);
      probed.ReadinessProbe = probed.readinessProbe;
      delete probed.readinessProbe;
    });
    expect(wrongCase.code).toBe(1);
    expect(wrongCase.stderr).toContain('unknown field "spec.template.spec.containers[0].ReadinessProbe"');

    const removed = await check((object) => {
      object.apiVersion = 'extensions/v1beta1';
    });
    expect(removed.code).toBe(1);
    expect(removed.stderr).toContain(
      'apiVersion "extensions/v1beta1" kind "Deployment" is not a Kubernetes type',
    );

    const unselected = await check((object) => {
      object.spec!.template!.metadata.labels['app.kubernetes.io/component'] = 'other';
    });
    expect(unselected.code).toBe(1);
    expect(unselected.stderr).toContain('`selector` does not match template `labels`');
  });
});

describe('what a person relies on', () => {
  it('runs the sandbox hosts privileged, as root, on the labelled nodes, with their state on the node', () => {
    const daemonSet = find(defaults, 'DaemonSet', 'orrery-sandbox-host');
    const pod = daemonSet.spec!.template!.spec;
    const host = pod.containers[0]!;
    expect(pod.nodeSelector).toEqual({ 'orrery.dev/sandbox-host': 'true' });
    expect(host.args).toEqual(['sandbox-host']);
    expect(host.securityContext).toMatchObject({ privileged: true, runAsUser: 0 });
    expect(pod.volumes?.filter((volume) => volume.hostPath).map((volume) => volume.hostPath!.path)).toEqual([
      '/var/lib/orrery/sandboxes',
      '/var/lib/orrery/rootfs',
    ]);
    expect(env(host, 'ORRERY_SANDBOX_DIR')?.value).toBe('/var/lib/orrery/sandboxes');
    expect(env(host, 'ORRERY_SANDBOX_ROOTFS_DIR')?.value).toBe('/var/lib/orrery/rootfs');
    expect(env(host, 'ORRERY_SANDBOX_HOST_BIND')?.value).toBe('0.0.0.0');
    expect(env(host, 'ORRERY_SANDBOX_HOST_PORT')?.value).toBe('8092');
    expect(env(host, 'ORRERY_SANDBOX_HOST_GRACE_SECONDS')?.value).toBe('300');
    expect(env(host, 'POD_IP')?.valueFrom?.fieldRef?.fieldPath).toBe('status.podIP');
    expect(env(host, 'ORRERY_SANDBOX_HOST_NAME')?.valueFrom?.fieldRef?.fieldPath).toBe('spec.nodeName');
    // $(POD_IP) is expanded by Kubernetes only from a variable defined above it.
    const names = host.env!.map((variable) => variable.name);
    expect(names.indexOf('POD_IP')).toBeLessThan(names.indexOf('ORRERY_SANDBOX_HOST_URL'));
    expect(env(host, 'ORRERY_SANDBOX_HOST_URL')?.value).toBe('http://$(POD_IP):8092');
    const elsewhere = find(everything, 'DaemonSet', 'prod-orrery-sandbox-host').spec!.template!.spec;
    expect(elsewhere.nodeSelector).toEqual({ 'example.com/pool': 'sandboxes' });
    // The API Service's in-cluster address.
    const service = find(defaults, 'Service', 'orrery-api');
    expect(env(host, 'ORRERY_SANDBOX_HOST_API_URL')?.value).toBe(
      `http://${service.metadata.name}:${service.spec!.ports![0]!.port}`,
    );
  });

  it('serves the API on 8080 on every interface, ready on /readyz, alive on /healthz, behind its Service', () => {
    const api = processes(defaults).get('api')!.container;
    expect(env(api, 'ORRERY_API_HOST')?.value).toBe('0.0.0.0');
    expect(api.ports).toEqual([{ name: 'http', containerPort: 8080 }]);
    expect(api.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(api.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
    const service = find(defaults, 'Service', 'orrery-api');
    const podLabels = find(defaults, 'Deployment', 'orrery-api').spec!.template!.metadata.labels;
    expect(podLabels).toMatchObject(service.spec!.selector as Record<string, string>);
    expect(service.spec!.ports).toEqual([{ name: 'http', port: 8080, targetPort: 'http' }]);
    // Clients' addresses (the per-address login limit's) come from the proxies named, and no others.
    expect(env(api, 'ORRERY_TRUST_PROXY')).toBeUndefined();
    const behindProxies = processes(everything).get('api')!.container;
    expect(env(behindProxies, 'ORRERY_TRUST_PROXY')?.value).toBe('10.0.0.0/8,192.168.0.0/16');
  });

  it('probes each process on a port it declares, the consumers on 8090 and the jobs on 8091', () => {
    // A probe on a port name the container lacks fails for ever, and no schema catches it.
    for (const rendered of [defaults, everything])
      for (const [component, { container }] of processes(rendered)) {
        if (component === 'provision') continue;
        for (const probe of [container.readinessProbe, container.livenessProbe])
          expect(
            container.ports?.map((declared) => declared.name),
            component,
          ).toContain(probe?.httpGet?.port);
      }
    const byComponent = processes(defaults);
    for (const [component, port, variable] of [
      ['consumers', 8090, 'ORRERY_CONSUMERS_PORT'],
      ['jobs', 8091, 'ORRERY_JOBS_PORT'],
    ] as const) {
      const { container } = byComponent.get(component)!;
      expect(container.args).toEqual([component]);
      expect(container.ports).toEqual([{ name: 'health', containerPort: port }]);
      expect(env(container, variable)?.value).toBe(String(port));
      expect(container.readinessProbe?.httpGet?.path).toBe('/readyz');
      expect(container.livenessProbe?.httpGet?.path).toBe('/healthz');
    }
  });

  it('scales the API by CPU by default, leaving the count to the autoscaler, and at a fixed count without it', () => {
    const autoscaler = find(defaults, 'HorizontalPodAutoscaler', 'orrery-api');
    expect(autoscaler.spec).toMatchObject({
      scaleTargetRef: { kind: 'Deployment', name: 'orrery-api' },
      minReplicas: 2,
      maxReplicas: 10,
    });
    expect(find(defaults, 'Deployment', 'orrery-api').spec).not.toHaveProperty('replicas');

    expect(everything.objects.some((object) => object.kind === 'HorizontalPodAutoscaler')).toBe(false);
    expect(find(everything, 'Deployment', 'prod-orrery-api').spec!.replicas).toBe(everyOption.api.replicas);
    expect(find(everything, 'Deployment', 'prod-orrery-consumers').spec!.replicas).toBe(
      everyOption.consumers.replicas,
    );
    expect(find(everything, 'Deployment', 'prod-orrery-jobs').spec!.replicas).toBe(everyOption.jobs.replicas);
  });

  it('gives every process the same Kafka, Postgres, ClickHouse and registry configuration', () => {
    const shared =
      /^ORRERY_(KAFKA_|TOPIC_REPLICATION_FACTOR$|CLICKHOUSE_URL$|POSTGRES_URL$|REGISTRY_URL$|DEFAULT_MODEL$|SANDBOX_HOST_GRACE_SECONDS$)/;
    for (const rendered of [defaults, everything]) {
      const byComponent = processes(rendered);
      expect([...byComponent.keys()].sort()).toEqual([
        'api',
        'consumers',
        'jobs',
        'provision',
        'sandbox-host',
      ]);
      const configurations = [...byComponent.values()].map(({ container }) => ({
        env: container.env!.filter((variable) => shared.test(variable.name)),
        mounts: container.volumeMounts!.filter((mount) => mount.name === 'kafka-tls'),
      }));
      for (const configuration of configurations) expect(configuration).toEqual(configurations[0]);
    }
    const api = processes(everything).get('api')!.container;
    expect(env(api, 'ORRERY_KAFKA_BROKERS')?.value).toBe(everyOption.kafka.brokers);
    expect(env(api, 'ORRERY_KAFKA_TLS')?.value).toBe('true');
    expect(env(api, 'ORRERY_KAFKA_TLS_CA')?.value).toBe('/etc/orrery/kafka-tls/ca.crt');
    expect(env(api, 'ORRERY_KAFKA_TLS_CERT')?.value).toBe('/etc/orrery/kafka-tls/tls.crt');
    expect(env(api, 'ORRERY_KAFKA_TLS_KEY')?.value).toBe('/etc/orrery/kafka-tls/tls.key');
    expect(env(api, 'ORRERY_KAFKA_SASL_MECHANISM')?.value).toBe('SCRAM-SHA-512');
    expect(env(api, 'ORRERY_REGISTRY_URL')?.value).toBe(everyOption.registry.url);
    expect(env(api, 'ORRERY_TOPIC_REPLICATION_FACTOR')?.value).toBe('3');
    expect(env(api, 'ORRERY_DEFAULT_MODEL')?.value).toBe('off');
    // The jobs declare a silent host lost after it; the hosts and the API read it too.
    expect(env(api, 'ORRERY_SANDBOX_HOST_GRACE_SECONDS')?.value).toBe(
      String(everyOption.sandboxHost.graceSeconds),
    );
    expect(api.volumeMounts).toContainEqual({
      name: 'kafka-tls',
      mountPath: '/etc/orrery/kafka-tls',
      readOnly: true,
    });
  });

  it('reads every secret by secretKeyRef from the Secret named, and inlines none', () => {
    const named: Record<string, SecretKeyRef> = {
      ORRERY_POSTGRES_URL: { name: 'postgres-connection', key: 'database-url' },
      ORRERY_CLICKHOUSE_URL: { name: 'clickhouse-connection', key: 'url' },
      ORRERY_KAFKA_SASL_USERNAME: { name: 'kafka-sasl', key: 'user' },
      ORRERY_KAFKA_SASL_PASSWORD: { name: 'kafka-sasl', key: 'pass' },
      ORRERY_KAFKA_TLS_KEY_PASSWORD: { name: 'kafka-client-tls', key: 'key-password' },
      ORRERY_HOST_SECRET: { name: 'orrery-shared', key: 'host' },
      ORRERY_TOKEN_SECRET: { name: 'orrery-shared', key: 'token' },
      ORRERY_MODELS: { name: 'orrery-models', key: 'models.json' },
    };
    const seen = new Set<string>();
    for (const [component, { container }] of processes(everything))
      for (const variable of container.env!)
        if (variable.name in named) {
          expect(variable, `${component} ${variable.name}`).toEqual({
            name: variable.name,
            valueFrom: { secretKeyRef: named[variable.name] },
          });
          seen.add(variable.name);
        }
    expect([...seen].sort()).toEqual(Object.keys(named).sort());
    // The chart makes no Secret of its own, and the defaults' URL is nowhere.
    expect(everything.objects.filter((object) => object.kind === 'Secret')).toEqual([]);
    expect(everything.text).not.toContain('postgres://');
    // The host secret goes to the API and the sandbox hosts only, the token secret to the API only.
    const holders = (name: string) =>
      [...processes(everything)]
        .filter(([, { container }]) => env(container, name))
        .map(([component]) => component);
    expect(holders('ORRERY_HOST_SECRET').sort()).toEqual(['api', 'sandbox-host']);
    expect(holders('ORRERY_TOKEN_SECRET')).toEqual(['api']);
    expect(holders('ORRERY_MODELS')).toEqual(['api']);
  });

  it('keeps the URLs given as values in a Secret, and generates the shared secrets (fresh on each helm template)', async () => {
    const api = processes(defaults).get('api')!.container;
    expect(env(api, 'ORRERY_POSTGRES_URL')?.valueFrom?.secretKeyRef).toEqual({
      name: 'orrery-connections',
      key: 'postgres-url',
    });
    const connections = find(defaults, 'Secret', 'orrery-connections');
    expect(Buffer.from(connections.data!['postgres-url']!, 'base64').toString()).toBe(
      'postgres://orrery:orrery@postgres:5432/orrery',
    );
    expect(env(api, 'ORRERY_HOST_SECRET')?.valueFrom?.secretKeyRef).toEqual({
      name: 'orrery',
      key: 'host-secret',
    });
    expect(env(api, 'ORRERY_TOKEN_SECRET')?.valueFrom?.secretKeyRef).toEqual({
      name: 'orrery',
      key: 'token-secret',
    });

    const generated = (rendered: Rendered) => find(rendered, 'Secret', 'orrery').data!;
    const again = generated(await template());
    for (const key of ['host-secret', 'token-secret']) {
      const value = Buffer.from(generated(defaults)[key]!, 'base64').toString();
      expect(value.length).toBeGreaterThanOrEqual(32);
      // No cluster to look the Secret up in: a new value each time (an install keeps its first).
      expect(again[key]).not.toBe(generated(defaults)[key]);
    }
    expect(generated(defaults)['host-secret']).not.toBe(generated(defaults)['token-secret']);
  });

  it('provisions in a hook before install and upgrade, after the Secret it reads', () => {
    const job = find(defaults, 'Job', 'orrery-provision');
    expect(job.metadata.annotations).toMatchObject({
      'helm.sh/hook': 'pre-install,pre-upgrade',
      'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
    });
    expect(processes(defaults).get('provision')!.container.args).toEqual(['provision']);
    // Before the chart's ServiceAccount exists: the namespace's default, unless one is named.
    expect(processes(defaults).get('provision')!.pod.serviceAccountName).toBeUndefined();
    expect(processes(everything).get('provision')!.pod.serviceAccountName).toBe(
      everyOption.serviceAccount.name,
    );
    const connections = find(defaults, 'Secret', 'orrery-connections');
    expect(connections.metadata.annotations!['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    expect(Number(connections.metadata.annotations!['helm.sh/hook-weight'])).toBeLessThan(
      Number(job.metadata.annotations!['helm.sh/hook-weight']),
    );
  });

  it("runs the other processes as the image's user, never as root, and labels everything as Helm recommends", () => {
    for (const rendered of [defaults, everything])
      for (const [component, { pod, container }] of processes(rendered)) {
        if (component === 'sandbox-host') continue;
        expect(pod.securityContext, component).toMatchObject({ runAsUser: 10001, runAsNonRoot: true });
        expect(container.securityContext, component).toMatchObject({ allowPrivilegeEscalation: false });
      }
    for (const object of defaults.objects)
      expect(object.metadata.labels, `${object.kind} ${object.metadata.name}`).toMatchObject({
        'app.kubernetes.io/name': 'orrery',
        'app.kubernetes.io/instance': 'orrery',
        'app.kubernetes.io/managed-by': 'Helm',
      });
    const images = [...processes(everything)].map(([component, { container }]) => [
      component,
      container.image,
    ]);
    expect(Object.fromEntries(images)).toEqual({
      api: 'registry.example.com/orrery:0.1.0-abc123',
      consumers: 'registry.example.com/orrery:0.1.0-abc123',
      jobs: 'registry.example.com/orrery:0.1.0-abc123',
      provision: 'registry.example.com/orrery:0.1.0-abc123',
      'sandbox-host': 'registry.example.com/orrery-sandbox-host:0.1.0-abc123',
    });
  });
});
