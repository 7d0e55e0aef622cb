// Type-checked in the fresh project against the packed declarations: a user's TypeScript sees
// each entry point's types.

import type { BetaToolUnion } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { ApiError, Client, DesktopStatus } from '@orrery/sandbox';
import { computerTools } from '@orrery/sandbox/ai';
import { computerToolset } from '@orrery/sandbox/anthropic';
import { computerTool } from '@orrery/sandbox/openai';
import { mountScreen, type ScreenOptions } from '@orrery/sandbox/screen';

export async function typed(client: Client): Promise<DesktopStatus> {
  const sandbox = await client.sandboxes.create({ size: 'small' });
  const toolset = computerToolset(sandbox.desktop);
  // The tool goes into the vendor's request as it is.
  const tool: BetaToolUnion = toolset.tool;
  // @ts-expect-error A typed tool, not `any`: our declarations' imports of the SDK resolve.
  const notATool: number = toolset.tool;
  const tools = computerTools(sandbox.desktop);
  const options: ScreenOptions = { token: 't', sandbox: sandbox.id, mode: 'view' };
  void [tool, notATool, tools.screenshot, computerTool.type, mountScreen, options];
  const error: ApiError | undefined = undefined;
  void error;
  return sandbox.desktop.status();
}
