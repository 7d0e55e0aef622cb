import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { freePort } from './ports.ts';

// Serves folders' files on a loopback port, as any static host would: the pages a browser test
// opens have an origin of their own, as a user's would. `mounts` maps a path prefix (`/`,
// `/novnc/`) to a folder; the longest prefix that matches wins.

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
};

export async function serveStatic(
  mounts: Record<string, string>,
): Promise<{ origin: string; stop: () => Promise<void> }> {
  const prefixes = Object.keys(mounts).sort((a, b) => b.length - a.length);
  const server = createServer(async (request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://host').pathname));
    const prefix = prefixes.find((candidate) => path.startsWith(candidate));
    try {
      if (prefix === undefined || path.includes('..')) throw new Error('not served');
      const body = await readFile(join(mounts[prefix]!, path.slice(prefix.length)));
      response.writeHead(200, { 'content-type': types[extname(path)] ?? 'application/octet-stream' });
      response.end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
