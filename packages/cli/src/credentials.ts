import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import envPaths from 'env-paths';
import { Failure } from './failures.ts';

// The key `orrery login` collected, kept in the user's config directory (env-paths: on Linux
// $XDG_CONFIG_HOME/orrery or ~/.config/orrery, on macOS ~/Library/Preferences/orrery, on Windows
// %APPDATA%\orrery\Config) as credentials.json, readable by the user alone: the file 0600, the
// directory 0700. One login at a time, with the API it was made against: the key is only ever
// sent back to that API.

export interface StoredLogin {
  api_url: string;
  org_id: string;
  key_id: string;
  key: string;
  /** When the login was made, ISO 8601. */
  saved_at: string;
}

/** Where the credentials live when no other directory is given: env-paths' config directory. */
export const defaultConfigDir = (): string => envPaths('orrery', { suffix: '' }).config;

const fields = ['api_url', 'org_id', 'key_id', 'key', 'saved_at'] as const;

function isStoredLogin(value: unknown): value is StoredLogin {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return fields.every((field) => typeof record[field] === 'string');
}

export class CredentialStore {
  readonly dir: string;
  readonly file: string;

  constructor(dir: string = defaultConfigDir()) {
    this.dir = dir;
    this.file = join(dir, 'credentials.json');
  }

  /** The stored login, or undefined if there is none. */
  async read(): Promise<StoredLogin | undefined> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new Failure(`Cannot read ${this.file}: ${(error as Error).message}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!isStoredLogin(parsed))
      throw new Failure(
        `${this.file} is not a login this tool wrote: run \`orrery logout\`, then log in again.`,
      );
    return parsed;
  }

  /** Replaces the stored login: written beside the file with mode 0600, then renamed over it. */
  async save(login: StoredLogin): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    // mkdir leaves an existing directory's mode alone, and a umask may have narrowed it: set it.
    await chmod(this.dir, 0o700);
    const temporary = `${this.file}.${process.pid}.tmp`;
    try {
      await writeFile(temporary, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      await rename(temporary, this.file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw new Failure(`Cannot write ${this.file}: ${(error as Error).message}`);
    }
  }

  /** Forgets the stored login; true if there was one. */
  async forget(): Promise<boolean> {
    try {
      await rm(this.file);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw new Failure(`Cannot remove ${this.file}: ${(error as Error).message}`);
    }
  }
}
