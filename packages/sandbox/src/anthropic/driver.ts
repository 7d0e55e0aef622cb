// Runs the members of Anthropic's computer toolset on a desktop: one function per member, the
// screen's scale, and the one-time start of a stopped desktop.

import type {
  BetaComputerMemberName,
  BetaComputerToolUseBlock,
} from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { toBase64 } from '../computer-use/base64.js';
import { ComputerUseError } from '../computer-use/errors.js';
import { fitPng, type Resize } from '../computer-use/png.js';
import { MAX_SIDE, parseSize, ScreenScale } from '../computer-use/screen.js';
import type { Sleep } from '../computer-use/wait.js';
import type { ClickOptions, DesktopActions, MouseButton, Point, Screenshot } from '../desktop-types.js';
import { count, direction, given, heldModifiers, keys, seconds, text } from './inputs.js';

/** The longest `wait` (spec 002: adapter A waits up to 300 seconds). */
export const MAX_WAIT_SECONDS = 300;

/** A PNG the model is shown: base64 data and its size. */
export interface ShownScreenshot {
  data: string;
  width: number;
  height: number;
}

/** What a member answers: a line of text, or a PNG. */
export type Answer = { text: string } | { screenshot: ShownScreenshot };

/** Each member's input type, as the SDK declares it on the member's `tool_use` block. */
type MemberInputs = {
  [K in BetaComputerMemberName]: Extract<BetaComputerToolUseBlock, { name: K }>['input'];
};

type Members = { readonly [K in BetaComputerMemberName]: (input: MemberInputs[K]) => Promise<Answer> };

const OK: Answer = { text: 'OK' };

export class ComputerDriver {
  readonly #desktop: DesktopActions;
  readonly #resize: Resize | undefined;
  readonly #sleep: Sleep;
  /** Known once a full screenshot was taken or the status was read. */
  #scale: ScreenScale | undefined;
  #screenshotTaken = false;

  constructor(desktop: DesktopActions, resize: Resize | undefined, sleep: Sleep) {
    this.#desktop = desktop;
    this.#resize = resize;
    this.#sleep = sleep;
  }

  /** Runs member `name` with the model's `input`; throws what refused or failed it. */
  async call(name: string, input: unknown): Promise<Answer> {
    if (!Object.hasOwn(this.#members, name)) {
      throw new ComputerUseError(`'${name}' is not a member of the computer toolset`);
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw new ComputerUseError(`The input of '${name}' must be an object; got ${JSON.stringify(input)}`);
    }
    const member = this.#members[name as BetaComputerMemberName] as (input: object) => Promise<Answer>;
    return member(input);
  }

  readonly #members: Members = {
    key: async (input) => {
      const repeat = given(input.repeat) ? { repeat: count(input.repeat, 'repeat') } : undefined;
      await this.#desktop.key(keys(input.text, 'text'), repeat);
      return OK;
    },
    hold_key: async (input) => {
      await this.#desktop.hold(keys(input.text, 'text'), seconds(input.duration, 'duration'));
      return OK;
    },
    type: async (input) => {
      await this.#desktop.type(text(input.text, 'text'));
      return OK;
    },
    cursor_position: async () => {
      const cursor = await this.#desktop.cursor();
      const shown = (await this.#screen()).toShot(cursor);
      return { text: `X=${shown.x}, Y=${shown.y}` };
    },
    mouse_move: async (input) => {
      await this.#desktop.move((await this.#screen()).toScreen(input.coordinate, 'coordinate'));
      return OK;
    },
    left_mouse_down: async () => {
      await this.#desktop.mouseDown();
      return OK;
    },
    left_mouse_up: async () => {
      await this.#desktop.mouseUp();
      return OK;
    },
    left_click: (input) => this.#click('left', 1, input),
    right_click: (input) => this.#click('right', 1, input),
    middle_click: (input) => this.#click('middle', 1, input),
    double_click: (input) => this.#click('left', 2, input),
    triple_click: (input) => this.#click('left', 3, input),
    left_click_drag: async (input) => {
      const screen = await this.#screen();
      await this.#desktop.drag({
        from: screen.toScreen(input.start_coordinate, 'start_coordinate'),
        to: screen.toScreen(input.coordinate, 'coordinate'),
        ...heldModifiers(input.text, 'text'),
      });
      return OK;
    },
    scroll: async (input) => {
      await this.#desktop.scroll({
        direction: direction(input.scroll_direction, 'scroll_direction'),
        amount: count(input.scroll_amount, 'scroll_amount'),
        ...(await this.#optionalPoint(input.coordinate)),
        ...heldModifiers(input.text, 'text'),
      });
      return OK;
    },
    wait: async (input) => {
      await this.#sleep(seconds(input.duration, 'duration', MAX_WAIT_SECONDS) * 1000);
      return OK;
    },
    screenshot: async () => {
      if (!this.#screenshotTaken) {
        this.#screenshotTaken = true;
        const status = await this.#desktop.status();
        if (!status.running) await this.#desktop.start();
      }
      const shot = await this.#desktop.screenshot();
      this.#scale = ScreenScale.fit(shot);
      return this.#show(shot);
    },
    zoom: async (input) => {
      const region = (await this.#screen()).regionToScreen(input.region, 'region');
      return this.#show(await this.#desktop.screenshot({ region }));
    },
  };

  async #click(
    button: MouseButton,
    clicks: 1 | 2 | 3,
    input: { coordinate?: number[] | null; text?: string | null },
  ): Promise<Answer> {
    const options: ClickOptions = {
      ...(await this.#optionalPoint(input.coordinate)),
      button,
      count: clicks,
      ...heldModifiers(input.text, 'text'),
    };
    await this.#desktop.click(options);
    return OK;
  }

  /** `{ x, y }` on the screen for an optional `coordinate`; nothing (at the pointer) without one. */
  async #optionalPoint(coordinate: unknown): Promise<Partial<Point>> {
    if (!given(coordinate)) return {};
    return (await this.#screen()).toScreen(coordinate, 'coordinate');
  }

  /** The screen's scale: from the last full screenshot, else from the desktop's status. */
  async #screen(): Promise<ScreenScale> {
    if (this.#scale) return this.#scale;
    const status = await this.#desktop.status();
    if (!status.running) {
      throw new ComputerUseError(
        'The desktop is not running: it is started on the first screenshot of a conversation, or by desktop.start()',
      );
    }
    const size = parseSize(status.size);
    if (!size) throw new ComputerUseError(`The desktop's status has no WIDTHxHEIGHT size: '${status.size}'`);
    this.#scale = ScreenScale.fit(size);
    return this.#scale;
  }

  async #show(png: Screenshot): Promise<Answer> {
    const shown = await fitPng(png, MAX_SIDE, this.#resize);
    return { screenshot: { data: toBase64(shown.bytes), width: shown.width, height: shown.height } };
  }
}
