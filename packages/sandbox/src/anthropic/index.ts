// Adapter A (spec 002): Anthropic's computer toolset, `computer_toolset_20260801`, run on a desktop.
//
//   const { tool, run } = computerToolset(sandbox.desktop);
//   const message = await anthropic.beta.messages.create({ ..., tools: [tool] });
//   messages.push({ role: 'assistant', content: message.content });
//   messages.push({ role: 'user', content: await run(message.content) });

import type {
  BetaComputerToolset20260801,
  BetaContentBlock,
  BetaContentBlockParam,
  BetaToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { asError } from '../computer-use/errors.js';
import type { Resize } from '../computer-use/png.js';
import { type Sleep, timerSleep } from '../computer-use/wait.js';
import type { DesktopActions } from '../desktop-types.js';
import { type Answer, ComputerDriver, type ShownScreenshot } from './driver.js';

export { ComputerUseError } from '../computer-use/errors.js';
export type { Resize } from '../computer-use/png.js';
export { MAX_SIDE } from '../computer-use/screen.js';
export type { Sleep } from '../computer-use/wait.js';
export { MAX_WAIT_SECONDS, type ShownScreenshot } from './driver.js';

/** The `toolset_name` the API sets on every call of this toolset, and echoed on each result. */
export const TOOLSET_NAME = 'computer';

/** What later calls of a message answer once one call has failed (the SDK's own wording). */
export const NOT_EXECUTED = 'Not executed: an earlier computer action in this turn failed.';

/** One member call, passed to `onAction` after it ran or failed. */
export interface ComputerStep {
  /** The member's name, such as `left_click`. */
  name: string;
  /** The model's input, as it sent it. */
  input: unknown;
  /** The PNG the model is shown, for `screenshot` and `zoom`. */
  screenshot?: ShownScreenshot;
  /** Why the call failed. */
  error?: Error;
}

export interface ComputerToolsetOptions {
  /** Called after each call, failures included (not for the calls skipped after a failure). */
  onAction?: (step: ComputerStep) => void | Promise<void>;
  /**
   * Shrinks a PNG to `width` x `height`, for screens over 2000 pixels a side. Needed only where the
   * runtime has no OffscreenCanvas (Node); when given, it is used instead of the canvas.
   */
  resize?: Resize;
  /** How `wait` waits; a timer by default. */
  sleep?: Sleep;
}

export interface ComputerToolset {
  /** The `tools` entry of the model request. */
  tool: BetaComputerToolset20260801;
  /**
   * Runs every `tool_use` block of an assistant message's content whose `toolset_name` is
   * `computer`, in order, and resolves with one `tool_result` each, for the next user message.
   */
  run(content: ReadonlyArray<BetaContentBlock | BetaContentBlockParam>): Promise<BetaToolResultBlockParam[]>;
}

/** The computer toolset on `desktop`; make one per conversation (it keeps the screen's scale). */
export function computerToolset(
  desktop: DesktopActions,
  options: ComputerToolsetOptions = {},
): ComputerToolset {
  const driver = new ComputerDriver(desktop, options.resize, options.sleep ?? timerSleep);
  return {
    tool: { type: 'computer_toolset_20260801' },
    run: (content) => run(driver, content, options.onAction),
  };
}

async function run(
  driver: ComputerDriver,
  content: ReadonlyArray<BetaContentBlock | BetaContentBlockParam>,
  onAction: ComputerToolsetOptions['onAction'],
): Promise<BetaToolResultBlockParam[]> {
  const results: BetaToolResultBlockParam[] = [];
  let failed = false;
  for (const block of content) {
    if (block.type !== 'tool_use' || block.toolset_name !== TOOLSET_NAME) continue;
    if (failed) {
      results.push(errorResult(block.id, NOT_EXECUTED));
      continue;
    }
    const step: ComputerStep = { name: block.name, input: block.input };
    try {
      const answer = await driver.call(block.name, block.input);
      if ('screenshot' in answer) step.screenshot = answer.screenshot;
      results.push(result(block.id, answer));
    } catch (error) {
      failed = true;
      step.error = asError(error);
      results.push(errorResult(block.id, step.error.message || 'The computer action failed'));
    }
    await onAction?.(step);
  }
  return results;
}

function result(toolUseId: string, answer: Answer): BetaToolResultBlockParam {
  return {
    type: 'tool_result',
    tool_use_id: toolUseId,
    toolset_name: TOOLSET_NAME,
    content:
      'screenshot' in answer
        ? [
            {
              type: 'image',
              source: { type: 'base64', media_type: 'image/png', data: answer.screenshot.data },
            },
          ]
        : [{ type: 'text', text: answer.text }],
  };
}

function errorResult(toolUseId: string, message: string): BetaToolResultBlockParam {
  return {
    type: 'tool_result',
    tool_use_id: toolUseId,
    toolset_name: TOOLSET_NAME,
    content: [{ type: 'text', text: message }],
    is_error: true,
  };
}
