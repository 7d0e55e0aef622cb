// Adapter B (spec 002): OpenAI's computer tool (Responses API) run on a desktop.
//
//   const response = await openai.responses.create({ ..., tools: [computerTool] });
//   for (const call of response.output.filter((item) => item.type === 'computer_call')) {
//     input.push(await computerCallOutput(sandbox.desktop, call));
//   }

import type {
  ComputerAction,
  ComputerTool,
  ResponseComputerToolCall,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import { toBase64 } from '../computer-use/base64.js';
import { ComputerUseError } from '../computer-use/errors.js';
import { type Sleep, timerSleep } from '../computer-use/wait.js';
import type { DesktopActions } from '../desktop-types.js';
import { perform } from './actions.js';

export { ComputerUseError } from '../computer-use/errors.js';
export type { Sleep } from '../computer-use/wait.js';
export { MAX_SCROLL_NOTCHES, openaiKey, SCROLL_PIXELS_PER_NOTCH } from './actions.js';

/** The `tools` entry of a Responses request. */
export const computerTool: Readonly<ComputerTool> = Object.freeze({ type: 'computer' });

/** How long a `wait` action waits unless `waitMs` says otherwise. */
export const DEFAULT_WAIT_MS = 1000;

type PendingSafetyCheck = ResponseComputerToolCall.PendingSafetyCheck;

export interface ComputerCallOutputOptions {
  /**
   * The call's `pending_safety_checks` a person approved (the checks, or their ids). A call with a
   * check not among them is not run: `computerCallOutput` throws `UnacknowledgedSafetyCheckError`.
   */
  acknowledgedSafetyChecks?: ReadonlyArray<PendingSafetyCheck | string>;
  /** Called after each action has run. */
  onAction?: (action: ComputerAction) => void | Promise<void>;
  /** How long a `wait` action waits, in milliseconds; 1000 by default. */
  waitMs?: number;
  /** How `wait` waits; a timer by default. */
  sleep?: Sleep;
}

/** A computer call carries safety checks no person approved; none of its actions ran. */
export class UnacknowledgedSafetyCheckError extends Error {
  override name = 'UnacknowledgedSafetyCheckError';
  readonly callId: string;
  /** The checks not approved, to show to a person. */
  readonly checks: PendingSafetyCheck[];

  constructor(callId: string, checks: PendingSafetyCheck[]) {
    const listed = checks.map((c) => (c.code ? `${c.id} (${c.code})` : c.id)).join(', ');
    super(
      `Computer call ${callId} was not run: its safety checks ${listed} need a person's approval; pass the approved ones as acknowledgedSafetyChecks`,
    );
    this.callId = callId;
    this.checks = checks;
  }
}

/**
 * Runs a `computer_call`'s actions (its `actions`, or its single `action`) in order on `desktop`,
 * then takes a screenshot, and resolves with the `computer_call_output` item for the next request.
 * Throws before any action when a pending safety check is not acknowledged, and throws the first
 * action's error that fails (later actions are not run).
 */
export async function computerCallOutput(
  desktop: DesktopActions,
  call: ResponseComputerToolCall,
  options: ComputerCallOutputOptions = {},
): Promise<ResponseInputItem.ComputerCallOutput> {
  const pending = call.pending_safety_checks ?? [];
  const approved = new Set(
    (options.acknowledgedSafetyChecks ?? []).map((c) => (typeof c === 'string' ? c : c.id)),
  );
  const unapproved = pending.filter((check) => !approved.has(check.id));
  if (unapproved.length > 0) throw new UnacknowledgedSafetyCheckError(call.call_id, unapproved);

  const wait = { ms: waitMs(options.waitMs), sleep: options.sleep ?? timerSleep };
  for (const action of actionsOf(call)) {
    await perform(desktop, action, wait);
    await options.onAction?.(action);
  }
  const screenshot = await desktop.screenshot();
  return {
    type: 'computer_call_output',
    call_id: call.call_id,
    acknowledged_safety_checks: pending.map((check) => ({ ...check })),
    output: { type: 'computer_screenshot', image_url: `data:image/png;base64,${toBase64(screenshot.bytes)}` },
  };
}

function actionsOf(call: ResponseComputerToolCall): ComputerAction[] {
  const { action, actions } = call;
  if (actions !== undefined && actions !== null) {
    if (action !== undefined && action !== null) {
      throw new ComputerUseError(
        `Computer call ${call.call_id} has both action and actions; it must have one`,
      );
    }
    return actions;
  }
  if (action === undefined || action === null) {
    throw new ComputerUseError(`Computer call ${call.call_id} has neither action nor actions`);
  }
  return [action];
}

function waitMs(value: number | undefined): number {
  if (value === undefined) return DEFAULT_WAIT_MS;
  if (!Number.isFinite(value) || value < 0) {
    throw new ComputerUseError(`waitMs must be a number of milliseconds from 0; got ${value}`);
  }
  return value;
}
