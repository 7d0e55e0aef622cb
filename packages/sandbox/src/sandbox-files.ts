import type { FileWritten } from './api-types.js';
import { bodyOf, type Connection } from './connection.js';
import { ApiError, unexpectedAnswer } from './errors.js';

// `Sandbox.files`: one file at a time, up to 64 MB, as raw bytes both ways (no base64 in JSON).

export class SandboxFiles {
  constructor(
    private readonly connection: Connection,
    private readonly sandboxId: string,
  ) {}

  /** The file's bytes. */
  async read(path: string): Promise<Uint8Array> {
    const call = this.connection.api.GET('/api/sandboxes/{id}/files', {
      params: { path: { id: this.sandboxId }, query: { path } },
      parseAs: 'arrayBuffer',
    });
    return new Uint8Array(await bodyOf(call));
  }

  /** Writes the file (a string as UTF-8), creating or replacing it. */
  async write(path: string, contents: string | Uint8Array): Promise<FileWritten> {
    const bytes = typeof contents === 'string' ? new TextEncoder().encode(contents) : contents;
    const url = `/api/sandboxes/${encodeURIComponent(this.sandboxId)}/files?${new URLSearchParams({ path })}`;
    const answer = await this.connection.putBytes(url, bytes);
    return writtenOf(answer);
  }
}

/** The write's answer, `{ data: { path, size_bytes } }`, read without trusting its shape. */
function writtenOf(answer: unknown): FileWritten {
  const data = typeof answer === 'object' && answer !== null && 'data' in answer ? answer.data : undefined;
  if (typeof data === 'object' && data !== null && 'path' in data && 'size_bytes' in data) {
    const { path, size_bytes } = data;
    if (typeof path === 'string' && typeof size_bytes === 'number') return { path, size_bytes };
  }
  throw new ApiError({
    code: unexpectedAnswer,
    status: 200,
    message:
      'The API answered the write without `{ path, size_bytes }`: read the file to check it, then retry.',
  });
}
