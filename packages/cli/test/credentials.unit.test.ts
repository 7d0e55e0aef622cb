import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CredentialStore } from '../src/credentials.ts';
import { Failure } from '../src/failures.ts';

const login = {
  api_url: 'http://api.test',
  org_id: 'org_1',
  key_id: 'key_1',
  key: 'orr_secret',
  saved_at: '2026-11-24T00:00:00.000Z',
};

let root: string | undefined;
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

async function store() {
  root = await mkdtemp(join(tmpdir(), 'orrery-credentials-'));
  return new CredentialStore(join(root, 'config', 'orrery'));
}

describe('CredentialStore', () => {
  it('saves the login readable by the user alone, reads it back, and forgets it', async () => {
    const credentials = await store();
    expect(await credentials.read()).toBeUndefined();
    await credentials.save(login);
    expect((await stat(credentials.file)).mode & 0o777).toBe(0o600);
    expect((await stat(credentials.dir)).mode & 0o777).toBe(0o700);
    expect(await credentials.read()).toEqual(login);
    await credentials.save({ ...login, key_id: 'key_2' });
    expect((await credentials.read())?.key_id).toBe('key_2');
    expect(await credentials.forget()).toBe(true);
    expect(await credentials.forget()).toBe(false);
    expect(await credentials.read()).toBeUndefined();
  });

  it('refuses a file it did not write, naming it', async () => {
    const credentials = await store();
    await credentials.save(login);
    await writeFile(credentials.file, '{"key": 1}');
    const refusal = await credentials.read().catch((thrown: unknown) => thrown);
    expect(refusal).toBeInstanceOf(Failure);
    expect((refusal as Failure).message).toContain(credentials.file);
  });
});
