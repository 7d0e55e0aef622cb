// A user's script in a fresh project that installed the packed @orrery/sandbox: every entry
// point imports, and the client drives a sandbox. Prints what it saw as one JSON line.
import { ApiError, Client, Desktop, Sandbox } from '@orrery/sandbox';
import { computerTools } from '@orrery/sandbox/ai';
import { computerToolset } from '@orrery/sandbox/anthropic';
import { computerCallOutput, computerTool } from '@orrery/sandbox/openai';
import { SandboxScreen } from '@orrery/sandbox/react';
import { mountScreen } from '@orrery/sandbox/screen';

const baseUrl = process.env.ORRERY_BASE_URL;
const client = new Client({ apiKey: process.env.ORRERY_API_KEY, baseUrl });
const sandbox = await client.sandboxes.create({ metadata: { from: 'packed' } });
const ran = await sandbox.exec('echo packed');
const grant = await sandbox.createToken({ abilities: ['view'] });
const viewer = Client.fromToken(grant, { baseUrl });
const refusal = await viewer.desktop.click({ x: 1, y: 1 }).catch((error) => error);
const listed = await client.sandboxes.list({ metadata: { from: 'packed' } });
await sandbox.destroy();

console.log(
  JSON.stringify({
    entryPoints: [
      Client,
      Sandbox,
      Desktop,
      ApiError,
      computerTools,
      computerToolset,
      computerCallOutput,
      SandboxScreen,
      mountScreen,
    ].map((entry) => typeof entry),
    computerTool,
    toolset: computerToolset(sandbox.desktop).tool.type,
    aiTools: Object.keys(computerTools(sandbox.desktop)),
    created: sandbox.id === listed[0]?.id,
    stdout: ran.stdout,
    refusal: refusal instanceof ApiError ? { code: refusal.code, status: refusal.status } : String(refusal),
    screenUrl: viewer.screenUrl.startsWith('ws://'),
    destroyed: sandbox.status,
  }),
);
