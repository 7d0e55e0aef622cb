import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { enableTracing, grantCredit } from '../../../api/admin/commands.ts';
import { type ModelServer, scriptedModel, startModelServer } from '../../harness/model-server.ts';
import { eventually } from '../../harness/platform.ts';
import { type LoggedIn, signUp } from '../people/given.ts';
import { givenSandboxApi, prepareTimeoutMs, type SandboxApi } from '../sandboxes/given.ts';

// Schemathesis (PyPI, pinned in infra/bootstrap.mjs, which `npm test` runs first) over the API's
// own /openapi.json, against the API listening as every surface runs it, with a key holding every
// scope: each answer's status must be one the document lists for its operation, its body must
// match that status's schema and its Content-Type the documented one, and no answer may be a
// server error (issue 11, item 5). Bounded: a few examples per operation, a timeout per request,
// and the whole run killed (and failed) past `runLimitMs`.

const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));
const schemathesis = join(projectRoot, '.venv', 'bin', 'st');
const configFile = fileURLToPath(new URL('./schemathesis.toml', import.meta.url));
// About 35 s on two idle cores; the limit leaves room for a machine busy with other work.
const runLimitMs = 150_000;
/** The operations schemathesis.toml disables. */
const operationsLeftOut = 1;
const checks = [
  'not_a_server_error',
  'status_code_conformance',
  'response_schema_conformance',
  'content_type_conformance',
];

interface Report {
  exit_code: number;
  operations: { total: number; tested: number; errored: number };
  test_cases: { generated: number; with_failures: number };
  failures: { code: string; title: string; operations: string[] }[];
  errors: unknown[];
}

let api: SandboxApi;
let baseUrl: string;
let key: string;
let reportDir: string;
let model: ModelServer;
let person: LoggedIn;
beforeAll(async () => {
  model = await startModelServer();
  // A host that holds every size, many at once: what is judged here is the API's answers, not
  // the fleet's room (test/int/fleet/ judges that).
  api = await givenSandboxApi(
    { resources: { cores: 8, memoryMiB: 24 * 1024, memoryOvercommit: 64 } },
    {
      models: [scriptedModel(model)],
    },
  );
  const org = await api.newOrg('Schemathesis', ['inference:invoke', 'traces:write', 'sandboxes:write']);
  key = org.key;
  // Credit, so a title or preview is answered rather than refused with 402.
  await grantCredit(api.platform.admin, org.orgId, 1_000_000, 'schemathesis');
  // In the tracing beta, so generated exports are read and judged, not all refused with 403.
  await enableTracing(api.platform.admin, org.orgId);
  await eventually(
    async () =>
      api.platform.directory.org(org.orgId)?.tracingEnabled &&
      api.platform.directory.balanceCents(org.orgId) > 0
        ? true
        : undefined,
    10_000,
    'tracing and credit in the directory',
  );
  person = await signUp(api.platform.api);
  baseUrl = api.baseUrl;
  reportDir = mkdtempSync(join(tmpdir(), 'orrery-schemathesis-'));
}, prepareTimeoutMs);
afterAll(async () => {
  await api.cleanup();
  await model?.close();
  rmSync(reportDir, { recursive: true, force: true });
});

/** Runs `st run`, asynchronously (the API answers from this process), killed past the limit. */
function runSchemathesis(): Promise<{ code: number | null; output: string; ms: number }> {
  const args = [
    '--config-file',
    configFile,
    'run',
    `${baseUrl}/openapi.json`,
    '--header',
    `Authorization: Bearer ${key}`,
    // A dashboard session too, so the people routes are judged past their 401.
    '--header',
    `Cookie: ${person.cookie}`,
    '--header',
    `X-CSRF-Token: ${person.csrf}`,
    '--checks',
    checks.join(','),
    '--max-examples',
    '8',
    // A fixed seed: the same cases each run, so a failure is one to reproduce, not a fluke.
    '--seed',
    '20261124',
    '--workers',
    '1',
    '--request-timeout',
    '15',
    '--report',
    'json',
    '--report-dir',
    reportDir,
    '--output-truncate',
    'true',
    '--no-color',
  ];
  const started = Date.now();
  return new Promise((resolve, reject) => {
    // In the report's folder: schemathesis keeps a cache (`.schemathesis/`) where it runs.
    const child = spawn(schemathesis, args, { cwd: reportDir, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-20_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), runLimitMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, ms: Date.now() - started });
    });
  });
}

it(
  'finds no failure in any operation of /openapi.json',
  async () => {
    expect(existsSync(schemathesis), `no ${schemathesis}: run \`node infra/bootstrap.mjs\``).toBe(true);
    const run = await runSchemathesis();
    expect(run.ms, `schemathesis ran past ${runLimitMs} ms and was killed`).toBeLessThan(runLimitMs);
    const reports = readdirSync(reportDir).filter((name) => name.endsWith('.json'));
    expect(reports, run.output).toHaveLength(1);
    const report = JSON.parse(readFileSync(join(reportDir, reports[0]!), 'utf8')) as Report;
    // Every operation of the document was tried, with cases enough to mean something.
    const paths = Object.keys((await api.platform.api.inject('/openapi.json')).json().paths).length;
    expect(paths).toBeGreaterThan(20);
    expect(report.operations.total).toBeGreaterThanOrEqual(paths);
    // All but the operations schemathesis.toml leaves out (logging out, which would end the session).
    expect(report.operations.tested, run.output).toBe(report.operations.total - operationsLeftOut);
    expect(report.test_cases.generated).toBeGreaterThan(report.operations.total * 4);
    // Then nothing failed: named in the assertion, with schemathesis's own account beside it.
    expect(
      report.failures.map((failure) => `${failure.code} ${failure.title}: ${failure.operations.join(', ')}`),
      run.output,
    ).toEqual([]);
    expect(report.errors, run.output).toEqual([]);
    expect([run.code, report.exit_code], run.output).toEqual([0, 0]);
    // Generated titles and previews got past the checks before the model, to the model itself.
    expect(model.requests.length).toBeGreaterThan(0);
  },
  runLimitMs + 10_000,
);
