import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processLimitReached, sandboxErrors } from '../../../domain/sandboxes/errors.ts';
import { sandboxRoutes } from '../../../domain/sandboxes/routes.ts';
import {
  counterValue,
  startCounterCommand,
  whileHostCounterCountsTwice,
} from '../sandboxes-runtime/counter.ts';
import { firstRefusal, forkBombCommand, tasksOf, untilAtLimit } from '../sandboxes-runtime/fork-bomb.ts';
import { givenSandboxApi, prepareTimeoutMs, type SandboxApi } from './given.ts';

// Sandboxes through HTTP, on real isolated sandboxes (spec, "States and transitions" and the
// `Sandbox` methods): create resolves running, exec, files, stop and resume keep the processes,
// fork copies files and metadata, destroy removes the files and hides the sandbox from lists;
// restart ends every process and keeps the files, also at the process limit (issue 48).

let api: SandboxApi;
beforeAll(async () => {
  api = await givenSandboxApi();
}, prepareTimeoutMs);
afterAll(() => api.cleanup());

const create = async (body: Record<string, unknown> = {}) => {
  const answer = await api.call('POST', '/api/sandboxes', { body });
  expect(answer.statusCode, answer.body).toBe(201);
  return answer.json().data;
};
const exec = async (id: string, command: string, extra: Record<string, unknown> = {}) => {
  const answer = await api.call('POST', `/api/sandboxes/${id}/exec`, { body: { command, ...extra } });
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.json().data;
};

describe('create', () => {
  it('resolves once running, with a default name `sb-` and six hex digits and the defaults', async () => {
    const sandbox = await create();
    expect(sandbox).toMatchObject({
      status: 'running',
      size: 'small',
      metadata: {},
      idle_timeout_seconds: 0,
      forked_from: null,
      has_secrets: false,
      desktop: { running: false },
      network: { egress: 'open', allow: [], deny: [] },
      template: null,
    });
    expect(sandbox.id).toMatch(/^sbx_[0-9a-f]{24}$/);
    expect(sandbox.name).toMatch(/^sb-[0-9a-f]{6}$/);
    expect((await api.runtime.status(sandbox.id)).state).toBe('running');
    // The answer is what the read model holds: a GET right after shows the same, by id or name.
    expect((await api.call('GET', `/api/sandboxes/${sandbox.id}`)).json().data).toEqual(sandbox);
    expect((await api.call('GET', `/api/sandboxes/${sandbox.name}`)).json().data).toEqual(sandbox);
  });

  it('takes a size, a name of up to 63 characters, metadata at its limits and an idle timeout', async () => {
    const name = `a${'-b'.repeat(30)}c`.padEnd(63, '9');
    const metadata = Object.fromEntries(
      Array.from({ length: 16 }, (_, i) => [`k${i}`.padEnd(40, '_'), i === 0 ? 'v'.repeat(256) : '']),
    );
    const sandbox = await create({ size: 'standard', name, metadata, idle_timeout_seconds: 604_800 });
    expect(sandbox).toMatchObject({ size: 'standard', name, metadata, idle_timeout_seconds: 604_800 });
    expect(name).toHaveLength(63);
    expect((await create({ idle_timeout_seconds: 60 })).idle_timeout_seconds).toBe(60);
  });

  it.each([
    [{ name: 'x'.repeat(64) }, 'name'],
    [{ name: 'Upper' }, 'name'],
    [{ name: '-dash' }, 'name'],
    [{ name: 'under_score' }, 'name'],
    [{ name: '' }, 'name'],
    [{ size: 'huge' }, 'size'],
    [{ metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
    [{ metadata: { ['k'.repeat(41)]: 'v' } }, `metadata.${'k'.repeat(41)}`],
    [{ metadata: { 'Bad-Key': 'v' } }, 'metadata["Bad-Key"]'],
    [{ metadata: { env: 'v'.repeat(257) } }, 'metadata.env'],
    [{ metadata: { env: 1 } }, 'metadata.env'],
    [{ idle_timeout_seconds: 59 }, 'idle_timeout_seconds'],
    [{ idle_timeout_seconds: 604_801 }, 'idle_timeout_seconds'],
    [{ idle_timeout_seconds: 90.5 }, 'idle_timeout_seconds'],
    [{ idempotency_key: 'k'.repeat(256) }, 'idempotency_key'],
    [{ idleTimeoutSeconds: 60 }, 'idleTimeoutSeconds'],
  ])('refuses %j with 422 invalid_request naming `%s`', async (body, param) => {
    const answer = await api.call('POST', '/api/sandboxes', { body });
    expect(answer.statusCode).toBe(422);
    expect(answer.json().error).toMatchObject({ code: 'invalid_request', param });
  });

  it('refuses a name taken in the org, and frees it when that sandbox is destroyed', async () => {
    const first = await create({ name: 'taken-name' });
    const again = await api.call('POST', '/api/sandboxes', { body: { name: 'taken-name' } });
    expect(again.statusCode).toBe(422);
    expect(again.json().error).toMatchObject({ code: 'invalid_request', param: 'name' });
    expect(again.json().error.message).toMatch(/taken/);
    // Another org may use the name.
    const other = await api.newOrg('Other org');
    const theirs = await api.call('POST', '/api/sandboxes', {
      body: { name: 'taken-name' },
      bearer: other.key,
    });
    expect(theirs.statusCode).toBe(201);
    await api.call('DELETE', `/api/sandboxes/${first.id}`);
    expect((await create({ name: 'taken-name' })).id).not.toBe(first.id);
  });

  it('is idempotent: a retry with the same key resolves with the first attempt’s sandbox', async () => {
    const key = `retry-${Date.now()}`;
    const [a, b] = await Promise.all([create({ idempotency_key: key }), create({ idempotency_key: key })]);
    const c = await create({ idempotency_key: key, name: 'ignored-on-retry' });
    expect(b.id).toBe(a.id);
    expect(c.id).toBe(a.id);
    expect(c.status).toBe('running');
    const named = await api.call('GET', '/api/sandboxes/ignored-on-retry');
    expect(named.statusCode).toBe(404);
  });
});

describe('exec and files', () => {
  let id: string;
  beforeAll(async () => {
    id = (await create()).id;
  });

  it('runs a command as root and answers its exit code and output', async () => {
    expect(await exec(id, 'id -u; echo oops >&2; exit 3')).toEqual({
      exit_code: 3,
      stdout: '0\n',
      stderr: 'oops\n',
      truncated: false,
    });
    const withOptions = await exec(id, 'pwd; echo $GREETING', { cwd: '/tmp', env: { GREETING: 'hello' } });
    expect(withOptions.stdout).toBe('/tmp\nhello\n');
    expect((await exec(id, 'sleep 5', { timeout_seconds: 1 })).exit_code).toBe(124);
  });

  it('writes raw bytes and reads them back, with the sandbox seeing the same file', async () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const written = await api.call('PUT', `/api/sandboxes/${id}/files?path=/root/dir/all.bin`, {
      body: bytes,
    });
    expect(written.statusCode, written.body).toBe(200);
    expect(written.json().data).toEqual({ path: '/root/dir/all.bin', size_bytes: 256 });
    const read = await api.call('GET', `/api/sandboxes/${id}/files?path=/root/dir/all.bin`);
    expect(read.statusCode).toBe(200);
    expect(read.headers['content-type']).toBe('application/octet-stream');
    expect(read.rawPayload.equals(bytes)).toBe(true);
    expect((await exec(id, 'wc -c < /root/dir/all.bin')).stdout).toBe('256\n');
  });

  it('stores the bytes as sent whatever the content type says', async () => {
    for (const type of ['text/plain; charset=utf-8', 'application/json', 'image/png']) {
      const bytes = Buffer.from('{"not": "parsed"}');
      const url = `/api/sandboxes/${id}/files?path=/root/typed`;
      const written = await api.call('PUT', url, { body: bytes, headers: { 'content-type': type } });
      expect([type, written.json().data.size_bytes]).toEqual([type, bytes.length]);
      expect((await api.call('GET', url)).rawPayload.equals(bytes)).toBe(true);
    }
  });

  it('moves 8 MiB each way', async () => {
    const big = Buffer.alloc(8 * 1024 * 1024, 'orrery ');
    const written = await api.call('PUT', `/api/sandboxes/${id}/files?path=/root/big`, { body: big });
    expect(written.json().data.size_bytes).toBe(big.length);
    expect((await api.call('GET', `/api/sandboxes/${id}/files?path=/root/big`)).rawPayload.equals(big)).toBe(
      true,
    );
  });

  it('refuses a file over 64 MiB on `contents`, a missing file or a relative path on `path`', async () => {
    const tooBig = Buffer.alloc(64 * 1024 * 1024 + 1);
    const over = await api.call('PUT', `/api/sandboxes/${id}/files?path=/root/huge`, { body: tooBig });
    expect(over.statusCode).toBe(422);
    expect(over.json().error).toMatchObject({ code: 'invalid_request', param: 'contents' });
    const missing = await api.call('GET', `/api/sandboxes/${id}/files?path=/root/nothing-here`);
    expect(missing.json().error).toMatchObject({ code: 'invalid_request', param: 'path' });
    const relative = await api.call('GET', `/api/sandboxes/${id}/files?path=root/x`);
    expect(relative.json().error).toMatchObject({ code: 'invalid_request', param: 'path' });
  });
});

describe('stop, resume, update', () => {
  it('stop freezes the processes with their memory; resume goes on where they were', async () => {
    const { id } = await create();
    await exec(id, startCounterCommand);
    await expect.poll(() => counterValue(api.runtime, id), { timeout: 5000 }).toBeGreaterThanOrEqual(2);

    const stopped = await api.call('POST', `/api/sandboxes/${id}/stop`);
    expect(stopped.json().data.status).toBe('stopped');
    const frozenAt = counterValue(api.runtime, id);
    await whileHostCounterCountsTwice();
    expect(counterValue(api.runtime, id)).toBe(frozenAt);
    // A repeated stop answers the sandbox as it is.
    expect((await api.call('POST', `/api/sandboxes/${id}/stop`)).json().data.status).toBe('stopped');

    const resumed = await api.call('POST', `/api/sandboxes/${id}/resume`);
    expect(resumed.json().data.status).toBe('running');
    await expect
      .poll(() => counterValue(api.runtime, id), { interval: 10, timeout: 3000 })
      .not.toBe(frozenAt);
    expect(counterValue(api.runtime, id)).toBe(frozenAt + 1);
    expect((await api.call('POST', `/api/sandboxes/${id}/resume`)).json().data.status).toBe('running');
  });

  it('update replaces all metadata, `{}` removes every key, and changes the idle timeout', async () => {
    const { id } = await create({ metadata: { a: '1', b: '2' } });
    const replaced = await api.call('PATCH', `/api/sandboxes/${id}`, { body: { metadata: { c: '3' } } });
    expect(replaced.json().data.metadata).toEqual({ c: '3' });
    const timed = await api.call('PATCH', `/api/sandboxes/${id}`, { body: { idle_timeout_seconds: 3600 } });
    expect(timed.json().data).toMatchObject({ metadata: { c: '3' }, idle_timeout_seconds: 3600 });
    const emptied = await api.call('PATCH', `/api/sandboxes/${id}`, { body: { metadata: {} } });
    expect(emptied.json().data.metadata).toEqual({});
    expect((await api.call('GET', `/api/sandboxes/${id}`)).json().data.metadata).toEqual({});
  });
});

describe('restart (issue 48)', () => {
  it('ends every process and starts afresh over the same files; a stopped sandbox is refused', async () => {
    const { id, name } = await create();
    await api.call('PUT', `/api/sandboxes/${id}/files?path=/root/kept.txt`, { body: Buffer.from('kept') });
    await exec(id, 'setsid sleep 1000 </dev/null >/dev/null 2>&1 &');
    const processes = async () => (await exec(id, 'ps -eo args')).stdout;
    expect(await processes()).toContain('sleep 1000');
    const initPid = (await api.runtime.status(id)).initPid;

    const restarted = await api.call('POST', `/api/sandboxes/${name}/restart`);
    expect(restarted.statusCode, restarted.body).toBe(200);
    const sandbox = restarted.json().data;
    expect(sandbox).toMatchObject({ id, name, status: 'running', desktop: { running: false } });
    expect((await api.call('GET', `/api/sandboxes/${id}`)).json().data).toEqual(sandbox);
    expect((await api.runtime.status(id)).initPid).not.toBe(initPid);
    expect(await processes()).not.toContain('sleep 1000');
    expect((await exec(id, 'cat /root/kept.txt')).stdout).toBe('kept');

    await api.call('POST', `/api/sandboxes/${id}/stop`);
    const refused = await api.call('POST', `/api/sandboxes/${id}/restart`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toEqual({ code: 'not_running', message: sandboxErrors.not_running.message });
    expect((await api.call('GET', `/api/sandboxes/${id}`)).json().data.status).toBe('stopped');
  });

  it('is the way out of a fork bomb: at the limit exec is 409 process_limit, after a restart it runs', async () => {
    const { id } = await create();
    await api.call('PUT', `/api/sandboxes/${id}/files?path=/root/kept.txt`, { body: Buffer.from('kept') });
    await exec(id, forkBombCommand);
    await untilAtLimit(tasksOf(await api.runtime.status(id)));

    const refused = await firstRefusal(async () => {
      const answer = await api.call('POST', `/api/sandboxes/${id}/exec`, {
        body: { command: 'echo ok', timeout_seconds: 5 },
      });
      if (answer.statusCode !== 200) throw answer;
    });
    const answer = refused as Awaited<ReturnType<SandboxApi['call']>>;
    expect(answer.statusCode).toBe(409);
    expect(answer.json().error).toEqual({
      code: 'process_limit',
      message: processLimitReached(1024).message,
    });

    const restarted = await api.call('POST', `/api/sandboxes/${id}/restart`);
    expect(restarted.json().data).toMatchObject({ id, status: 'running' });
    expect((await exec(id, 'echo ok; cat /root/kept.txt')).stdout).toBe('ok\nkept');
  }, 120_000);
});

describe('fork and destroy', () => {
  it('fork makes a running copy with the same files and metadata; the source is unchanged', async () => {
    const source = await create({ metadata: { team: 'web' } });
    await api.call('PUT', `/api/sandboxes/${source.id}/files?path=/root/note.txt`, {
      body: Buffer.from('before'),
    });
    await api.call('POST', `/api/sandboxes/${source.id}/stop`);
    const forked = await api.call('POST', `/api/sandboxes/${source.name}/fork`, {
      body: { name: 'the-copy' },
    });
    expect(forked.statusCode, forked.body).toBe(201);
    const copy = forked.json().data;
    expect(copy).toMatchObject({
      name: 'the-copy',
      status: 'running',
      metadata: { team: 'web' },
      forked_from: source.id,
    });
    expect((await exec(copy.id, 'cat /root/note.txt')).stdout).toBe('before');
    expect((await api.call('GET', `/api/sandboxes/${source.id}`)).json().data.status).toBe('stopped');
    const defaultNamed = (await api.call('POST', `/api/sandboxes/${source.id}/fork`)).json().data;
    expect(defaultNamed.name).toMatch(/^sb-[0-9a-f]{6}$/);
  });

  it('destroy deletes the files; the sandbox is then visible only with `all=true`', async () => {
    const sandbox = await create({ metadata: { doomed: 'yes' } });
    await api.call('PUT', `/api/sandboxes/${sandbox.id}/files?path=/root/x`, { body: Buffer.from('x') });
    const destroyed = await api.call('DELETE', `/api/sandboxes/${sandbox.id}`);
    expect(destroyed.json().data.status).toBe('deleted');
    expect(existsSync(join(api.runtime.dir, sandbox.id))).toBe(false);
    expect((await api.call('GET', `/api/sandboxes/${sandbox.id}`)).statusCode).toBe(404);
    expect((await api.call('POST', `/api/sandboxes/${sandbox.id}/resume`)).statusCode).toBe(404);
    // A repeated destroy answers the deleted sandbox.
    expect((await api.call('DELETE', `/api/sandboxes/${sandbox.id}`)).json().data.status).toBe('deleted');
    const listed = (await api.call('GET', '/api/sandboxes?metadata[doomed]=yes')).json().data;
    expect(listed).toEqual([]);
    const all = (await api.call('GET', '/api/sandboxes?metadata[doomed]=yes&all=true')).json().data;
    expect(all.map((s: { id: string; status: string }) => [s.id, s.status])).toEqual([
      [sandbox.id, 'deleted'],
    ]);
  });
});

describe('list', () => {
  it('lists newest first; metadata filters need every key and value', async () => {
    const run = `run-${Date.now()}`;
    const a = await create({ metadata: { run, role: 'web', tier: 'a' } });
    const b = await create({ metadata: { run, role: 'web', tier: 'b' } });
    const c = await create({ metadata: { run, role: 'db' } });
    const ids = async (query: string) =>
      (await api.call('GET', `/api/sandboxes?${query}`)).json().data.map((s: { id: string }) => s.id);
    expect(await ids(`metadata[run]=${run}`)).toEqual([c.id, b.id, a.id]);
    expect(await ids(`metadata[run]=${run}&metadata[role]=web`)).toEqual([b.id, a.id]);
    expect(await ids(`metadata[run]=${run}&metadata[role]=web&metadata[tier]=a`)).toEqual([a.id]);
    expect(await ids(`metadata[run]=${run}&metadata[role]=cache`)).toEqual([]);
    const bad = await api.call('GET', '/api/sandboxes?all=maybe');
    expect(bad.json().error).toMatchObject({ code: 'invalid_request', param: 'all' });
    // Only the caller's org.
    const other = await api.newOrg('Other lister');
    const theirs = await api.call('GET', `/api/sandboxes?metadata[run]=${run}`, { bearer: other.key });
    expect(theirs.json().data).toEqual([]);
  });
});

describe('the route table', () => {
  it('serves every route of domain/sandboxes/routes.ts, each in /openapi.json', async () => {
    const openapi = (await api.platform.api.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const route of Object.values(sandboxRoutes)) {
      const path = `/api${route.path.replace(':id', '{id}')}`;
      expect([path, route.method, openapi.paths[path]?.[route.method.toLowerCase()] !== undefined]).toEqual([
        path,
        route.method,
        true,
      ]);
    }
    expect(openapi.paths['/api/admin/sandboxes/{id}/secrets'].post).toBeDefined();
    // The shared auth still serves the other surfaces' keys.
    expect((await api.call('GET', '/api/me')).json().data.key.scopes).toEqual(['sandboxes:write']);
  });
});
