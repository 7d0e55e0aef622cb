import { answerOf, bodyOf, type Connection } from './connection.js';
import {
  actBody,
  checkResolution,
  clickBody,
  dragBody,
  holdBody,
  keyBody,
  moveBody,
  openBody,
  regionQuery,
  scrollBody,
  treeQuery,
  typeBody,
} from './desktop-arguments.js';
import type {
  Ability,
  AccessibilityAction,
  AccessibilityTreeOptions,
  ClickOptions,
  DesktopActions,
  DesktopStatus,
  DragOptions,
  Keys,
  Point,
  Region,
  Screenshot,
  ScrollOptions,
} from './desktop-types.js';
import { ApiError, unexpectedAnswer } from './errors.js';
import type { paths } from './openapi.generated.js';
import { screenshotSize } from './png.js';

// A sandbox's desktop (spec 002, "Desktop methods of the client package"): one method per row,
// each checking its arguments before it sends anything. With a sandbox token whose ability is
// known, a method beyond it is refused the same way, without a request.

type InputBody =
  paths['/api/sandboxes/{id}/desktop/input']['post']['requestBody']['content']['application/json'];

/** A `control` method called with a `view` token: the API's refusal, naming the method. */
function insufficientAbility(method: string): ApiError {
  return new ApiError({
    code: 'insufficient_ability',
    status: 403,
    message: `This sandbox token has the \`view\` ability only: mint one with \`abilities: ['control']\` to call \`desktop.${method}\`.`,
  });
}

export class Desktop implements DesktopActions {
  readonly accessibility: DesktopActions['accessibility'];

  /**
   * `granted` is the token's ability when it is known; `undefined` for an API key, or a token
   * given as a bare string, leaves the API to decide.
   */
  constructor(
    private readonly connection: Connection,
    readonly sandboxId: string,
    private readonly granted?: Ability,
  ) {
    this.accessibility = {
      tree: (options?: AccessibilityTreeOptions) => this.tree(options),
      act: (action: AccessibilityAction) => this.act(action),
    };
  }

  private get path() {
    return { id: this.sandboxId };
  }

  private require(ability: Ability, method: string): void {
    if (ability === 'control' && this.granted === 'view') throw insufficientAbility(method);
  }

  async status(): Promise<DesktopStatus> {
    this.require('view', 'status');
    const { api } = this.connection;
    return (await bodyOf(api.GET('/api/sandboxes/{id}/desktop', { params: { path: this.path } }))).data;
  }

  async screenshot(options: { region?: Region } = {}): Promise<Screenshot> {
    const region = regionQuery(options.region);
    this.require('view', 'screenshot');
    const { data, response } = await answerOf(
      this.connection.api.GET('/api/sandboxes/{id}/desktop/screenshot', {
        params: { path: this.path, query: region === undefined ? {} : { region } },
        parseAs: 'arrayBuffer',
      }),
    );
    const bytes = new Uint8Array(data);
    return { bytes, ...screenshotSize(bytes, response.headers) };
  }

  async start(options: { resolution?: string } = {}): Promise<DesktopStatus> {
    const resolution =
      options.resolution === undefined ? {} : { resolution: checkResolution(options.resolution) };
    this.require('control', 'start');
    return this.action({ action: 'start', ...resolution });
  }

  async stop(): Promise<DesktopStatus> {
    this.require('control', 'stop');
    return this.action({ action: 'stop' });
  }

  async click(options: ClickOptions = {}): Promise<void> {
    await this.input(clickBody(options), 'click');
  }

  async move(point: Point): Promise<void> {
    await this.input(moveBody(point), 'move');
  }

  async mouseDown(): Promise<void> {
    await this.input({ action: 'down' }, 'mouseDown');
  }

  async mouseUp(): Promise<void> {
    await this.input({ action: 'up' }, 'mouseUp');
  }

  async drag(options: DragOptions): Promise<void> {
    await this.input(dragBody(options), 'drag');
  }

  async scroll(options: ScrollOptions): Promise<void> {
    await this.input(scrollBody(options), 'scroll');
  }

  async type(text: string): Promise<void> {
    await this.input(typeBody(text), 'type');
  }

  async key(keys: Keys, options: { repeat?: number } = {}): Promise<void> {
    await this.input(keyBody(keys, options), 'key');
  }

  async hold(keys: Keys, seconds: number): Promise<void> {
    await this.input(holdBody(keys, seconds), 'hold');
  }

  async cursor(): Promise<Point> {
    const answer = await this.input({ action: 'cursor' }, 'cursor');
    if (!('x' in answer))
      throw new ApiError({
        code: unexpectedAnswer,
        status: 200,
        message: 'The API answered `cursor` without a position: retry.',
      });
    return { x: answer.x, y: answer.y };
  }

  async open(urls: string | readonly string[]): Promise<void> {
    await this.input(openBody(urls), 'open');
  }

  private async tree(options: AccessibilityTreeOptions = {}): Promise<unknown> {
    const query = treeQuery(options);
    this.require('control', 'accessibility.tree');
    const { api } = this.connection;
    return (
      await bodyOf(
        api.GET('/api/sandboxes/{id}/desktop/accessibility', { params: { path: this.path, query } }),
      )
    ).data;
  }

  private async act(action: AccessibilityAction): Promise<unknown> {
    const body = actBody(action);
    this.require('control', 'accessibility.act');
    const { api } = this.connection;
    return (
      await bodyOf(
        api.POST('/api/sandboxes/{id}/desktop/accessibility', { params: { path: this.path }, body }),
      )
    ).data;
  }

  private async action(
    body: paths['/api/sandboxes/{id}/desktop']['post']['requestBody']['content']['application/json'],
  ): Promise<DesktopStatus> {
    const { api } = this.connection;
    return (await bodyOf(api.POST('/api/sandboxes/{id}/desktop', { params: { path: this.path }, body })))
      .data;
  }

  /** `body` is checked already; the ability is checked here, after the arguments, as the API does. */
  private async input(body: InputBody, method: string) {
    this.require('control', method);
    const { api } = this.connection;
    return (
      await bodyOf(api.POST('/api/sandboxes/{id}/desktop/input', { params: { path: this.path }, body }))
    ).data;
  }
}
