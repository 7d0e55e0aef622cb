import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { regionOutputSize } from '../../../domain/sandboxes/screen-geometry.ts';
import { ApiError, Client, type Sandbox } from '../../../packages/sandbox/src/index.ts';
import { createDesktop } from '../../../sandbox-runtime/desktop/index.ts';
import { eventually } from '../../harness/platform.ts';
import { givenSandboxApi, prepareTimeoutMs, type SandboxApi } from '../sandboxes/given.ts';
import { colours, testPage } from '../sandboxes-desktop/page.ts';
import { centre, decodePng, findColour } from '../sandboxes-desktop/png.ts';

// @orrery/sandbox against the real platform listening on a loopback port, with real sandboxes
// and a real desktop: every `Sandbox` method (restart with a desktop running), lookup, tokens and `Client.fromToken`, and the
// `ApiError` of real refusals. (Here rather than in packages/sandbox/test: the package may not
// import the platform's test harness, which this needs; see .dependency-cruiser.cjs.)

let api: SandboxApi;
let client: Client;
let baseUrl: string;
let sandbox: Sandbox;
const run = `r${Date.now().toString(36)}`;
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

beforeAll(async () => {
  api = await givenSandboxApi((runtime) => ({ desktop: createDesktop(runtime) }));
  baseUrl = api.baseUrl;
  client = new Client({ apiKey: api.key, baseUrl });
}, prepareTimeoutMs);
afterAll(() => api.cleanup());

describe('sandboxes', () => {
  it('creates one, running, with its name and metadata; a retry with the same idempotency key gets it again', async () => {
    const options = {
      name: `client-${run}`,
      metadata: { suite: 'client', run },
      idempotencyKey: `key-${run}`,
    };
    sandbox = await client.sandboxes.create(options);
    expect([sandbox.name, sandbox.status, sandbox.metadata]).toEqual([
      options.name,
      'running',
      options.metadata,
    ]);
    expect(sandbox.id).toMatch(/^sbx_/);
    expect(sandbox.data).toMatchObject({ id: sandbox.id, size: 'small', idle_timeout_seconds: 0 });
    expect(sandbox.desktop.sandboxId).toBe(sandbox.id);
    const retry = await client.sandboxes.create(options);
    expect(retry.id).toBe(sandbox.id);
  });

  it('gets it by id and by name', async () => {
    expect((await client.sandboxes.get(sandbox.id)).name).toBe(sandbox.name);
    expect((await client.sandboxes.get(sandbox.name)).id).toBe(sandbox.id);
  });

  it('runs a command with cwd, env and a timeout', async () => {
    const result = await sandbox.exec('pwd; echo "$GREETING"; echo oops >&2; exit 3', {
      cwd: '/tmp',
      env: { GREETING: 'hello' },
      timeoutSeconds: 30,
    });
    expect(result).toEqual({ exit_code: 3, stdout: '/tmp\nhello\n', stderr: 'oops\n', truncated: false });
  });

  it('writes files from a string and from bytes, and reads the same bytes back', async () => {
    expect(await sandbox.files.write('/root/notes.txt', 'héllo\n')).toEqual({
      path: '/root/notes.txt',
      size_bytes: 7,
    });
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect((await sandbox.files.write('/root/all.bin', bytes)).size_bytes).toBe(256);
    expect(new TextDecoder().decode(await sandbox.files.read('/root/notes.txt'))).toBe('héllo\n');
    expect(await sandbox.files.read('/root/all.bin')).toEqual(bytes);
  });

  it('updates metadata and the idle timeout, resolving with the same object', async () => {
    const same = await sandbox.update({
      metadata: { suite: 'client', run, stage: 'updated' },
      idleTimeoutSeconds: 3600,
    });
    expect(same).toBe(sandbox);
    expect(sandbox.metadata).toEqual({ suite: 'client', run, stage: 'updated' });
    expect(sandbox.data.idle_timeout_seconds).toBe(3600);
  });

  it('stops and resumes; a stopped sandbox refuses exec with not_running', async () => {
    expect((await sandbox.stop()).status).toBe('stopped');
    const stopped = await refusal(sandbox.exec('true'));
    expect(stopped).toBeInstanceOf(ApiError);
    expect(stopped).toMatchObject({ code: 'not_running', status: 409 });
    expect((await sandbox.resume()).status).toBe('running');
    expect((await sandbox.exec('cat /root/notes.txt')).stdout).toBe('héllo\n');
  });

  it('forks a running copy with the same files and metadata; lists by metadata, newest first; destroys', async () => {
    const copy = await sandbox.fork({ name: `copy-${run}` });
    expect([copy.name, copy.status, copy.metadata]).toEqual([`copy-${run}`, 'running', sandbox.metadata]);
    expect(copy.data.forked_from).toBe(sandbox.id);
    expect((await copy.exec('cat /root/notes.txt')).stdout).toBe('héllo\n');
    const listed = await client.sandboxes.list({ metadata: { run, stage: 'updated' } });
    expect(listed.map((s) => s.id)).toEqual([copy.id, sandbox.id]);
    expect(await client.sandboxes.list({ metadata: { run, stage: 'other' } })).toEqual([]);

    expect((await copy.destroy()).status).toBe('deleted');
    expect((await client.sandboxes.list({ metadata: { run } })).map((s) => s.id)).toEqual([sandbox.id]);
    const all = await client.sandboxes.list({ metadata: { run }, all: true });
    expect(all.map((s) => [s.id, s.status])).toEqual([
      [copy.id, 'deleted'],
      [sandbox.id, 'running'],
    ]);
    const gone = await refusal(client.sandboxes.get(copy.id));
    expect(gone).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('refreshes from the API', async () => {
    await api.call('PATCH', `/api/sandboxes/${sandbox.id}`, {
      body: { metadata: { run, stage: 'elsewhere' } },
    });
    expect(sandbox.metadata.stage).toBe('updated');
    expect((await sandbox.refresh()).metadata).toEqual({ run, stage: 'elsewhere' });
  });

  it('creates with a network policy, updates it, and shows it as `network` and `data.network`', async () => {
    const offline = await client.sandboxes.create({ network: { egress: 'none' }, metadata: { run } });
    expect(offline.network).toEqual({ egress: 'none', allow: [], deny: [] });
    // Typed from the API's document: a field it lacks or a wrong egress fails the type check.
    const egress: 'open' | 'none' = offline.data.network.egress;
    expect(egress).toBe('none');
    expect((await api.runtime.status(offline.id)).network.egress).toBe('none');

    const same = await offline.update({ network: { deny: ['Example.COM', '198.51.100.9/24'] } });
    expect(same).toBe(offline);
    const opened = { egress: 'open', allow: [], deny: ['example.com', '198.51.100.0/24'] };
    expect(offline.data.network).toEqual(opened);
    expect(offline.metadata).toEqual({ run });
    expect((await api.runtime.status(offline.id)).network).toEqual(opened);
    expect((await offline.fork()).network).toEqual(opened);

    const bad = await refusal(
      offline.update({ network: { allow: ['pypi.org', '151.101.0.0/16', 'files.pythonhosted.org', 'a b'] } }),
    );
    expect(bad).toBeInstanceOf(ApiError);
    expect(bad).toMatchObject({ code: 'invalid_request', status: 422, param: 'network.allow[3]' });
    expect((await offline.refresh()).network).toEqual(opened);
  });

  it("answers a real refusal as ApiError with the API's code, status, message and param", async () => {
    const error = await refusal(client.sandboxes.create({ name: 'Not A Name' }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'invalid_request', status: 422, param: 'name' });
    expect((error as ApiError).message).toMatch(/^Invalid `name`: /);
    const unauthorized = await refusal(new Client({ apiKey: 'osk_nope', baseUrl }).sandboxes.list());
    expect(unauthorized).toMatchObject({ code: 'unauthorized', status: 401 });
  });

  it('reaches routes it does not wrap through the typed low-level client', async () => {
    const { data, response } = await client.client.GET('/api/me');
    expect(response.status).toBe(200);
    expect(data?.data.key.scopes).toEqual(['sandboxes:write']);
  });
});

describe('the desktop', () => {
  const pageUrl = 'http://127.0.0.1:8000/page.html';

  it('starts at a resolution, with its status', async () => {
    const status = await sandbox.desktop.start({ resolution: '1024x768' });
    expect(status).toMatchObject({ running: true, size: '1024x768' });
    expect(await sandbox.desktop.status()).toEqual(status);
  }, 90_000);

  it('takes screenshots whose size is the screen, or the region scaled up', async () => {
    const whole = await sandbox.desktop.screenshot();
    expect([whole.width, whole.height]).toEqual([1024, 768]);
    expect(decodePng(Buffer.from(whole.bytes)).width).toBe(1024);
    const region = [0, 0, 200, 100] as const;
    const part = await sandbox.desktop.screenshot({ region });
    expect({ width: part.width, height: part.height }).toEqual(
      regionOutputSize({ width: 1024, height: 768 }, region),
    );
    const outside = await refusal(sandbox.desktop.screenshot({ region: [0, 0, 2000, 100] }));
    expect(outside).toMatchObject({ code: 'invalid_request', status: 422, param: 'region' });
  });

  it('opens a page, clicks its field, types into it, and reads the pointer', async () => {
    await sandbox.files.write('/srv/www/page.html', testPage);
    await sandbox.exec(
      'cd /srv/www && setsid python3 -m http.server 8000 --bind 127.0.0.1 </dev/null >/dev/null 2>&1 &',
    );
    await eventually(async () =>
      (await sandbox.exec(`python3 -c "import urllib.request; urllib.request.urlopen('${pageUrl}')"`))
        .exit_code === 0
        ? true
        : undefined,
    );
    await sandbox.desktop.open(pageUrl);
    const field = await eventually(
      async () =>
        findColour(decodePng(Buffer.from((await sandbox.desktop.screenshot()).bytes)), colours.field),
      20_000,
      'the test page',
    );
    const at = centre(field);
    await sandbox.desktop.click(at);
    expect(await sandbox.desktop.cursor()).toEqual(at);
    await sandbox.desktop.type('héllo ✓');
    await sandbox.desktop.key(['Left', 'BackSpace']);
    const name = findNode(await sandbox.desktop.accessibility.tree(), 'textbox', 'Name');
    // Left goes back over ✓, and BackSpace takes the space before it.
    expect(name?.value).toBe('héllo✓');
    await sandbox.desktop.move({ x: 10, y: 20 });
    expect(await sandbox.desktop.cursor()).toEqual({ x: 10, y: 20 });
  }, 60_000);

  it('works from a token: a view grant sees, a view token string is refused control by the API', async () => {
    const view = await sandbox.createToken({ abilities: ['view'], expiresIn: 600 });
    expect(view).toMatchObject({ sandbox: sandbox.id, abilities: ['view'], origins: [] });
    const session = Client.fromToken(view, { baseUrl });
    expect(session.screenUrl).toBe(
      `${baseUrl.replace(/^http/, 'ws')}/api/sandboxes/${sandbox.id}/screen?token=${view.token}`,
    );
    expect((await session.desktop.screenshot()).width).toBe(1024);
    const fromString = Client.fromToken(view.token, { sandbox: sandbox.id, baseUrl });
    const refused = await refusal(fromString.desktop.click());
    expect(refused).toMatchObject({ code: 'insufficient_ability', status: 403 });
    const control = await sandbox.createToken({ abilities: ['control'] });
    const driver = Client.fromToken(control, { baseUrl }).desktop;
    await driver.move({ x: 30, y: 40 });
    expect(await driver.cursor()).toEqual({ x: 30, y: 40 });
  });

  it('restarts: every process ends, the files stay, the desktop is not running and starts again', async () => {
    const same = await sandbox.restart();
    expect(same).toBe(sandbox);
    expect([sandbox.status, sandbox.data.desktop]).toEqual(['running', { running: false }]);
    expect(await sandbox.desktop.status()).toEqual({ running: false });
    expect(await refusal(sandbox.desktop.cursor())).toMatchObject({ code: 'no_desktop', status: 409 });
    // The page's server, started in the background, ended with the rest; its page did not.
    expect((await sandbox.exec("ps -eo args | grep -c '[h]ttp.server'")).stdout).toBe('0\n');
    expect(new TextDecoder().decode(await sandbox.files.read('/srv/www/page.html'))).toBe(testPage);
    const status = await sandbox.desktop.start({ resolution: '1024x768' });
    expect(status).toMatchObject({ running: true, size: '1024x768' });
  }, 90_000);

  it('stops; then a desktop method is refused with no_desktop', async () => {
    expect(await sandbox.desktop.stop()).toEqual({ running: false });
    expect(await refusal(sandbox.desktop.cursor())).toMatchObject({ code: 'no_desktop', status: 409 });
  }, 60_000);

  it('is destroyed with its sandbox', async () => {
    expect((await sandbox.destroy()).status).toBe('deleted');
  });
});

interface TreeNode {
  role?: string;
  name?: string;
  value?: string;
  children?: TreeNode[];
}

function findNode(tree: unknown, role: string, name: string): TreeNode | undefined {
  const node = tree as TreeNode;
  if (node.role === role && node.name === name) return node;
  for (const child of node.children ?? []) {
    const found = findNode(child, role, name);
    if (found) return found;
  }
  return undefined;
}
