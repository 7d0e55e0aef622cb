import type { TemplateData, TemplateRecipe } from './api-types.js';
import { bodyOf, type Connection } from './connection.js';
import { ApiError } from './errors.js';

// Templates (issue 48): what a sandbox starts from instead of the bare base. `client.templates`
// builds one from a recipe (Debian packages and commands, built once in the background) and lists,
// gets and deletes them; `sandbox.snapshot({ name })` takes one from a sandbox's files, and
// `client.sandboxes.create({ template })` makes a sandbox from one, as fast as from the base.

export interface CreateTemplateOptions {
  /** Lowercase letters, digits and dashes, up to 63, unique among the org's templates. */
  name: string;
  /**
   * Debian package names (installed with apt, without recommends) and shell commands run in turn
   * as root after them, like a Containerfile's RUN lines; at least one of the two.
   */
  recipe: Partial<TemplateRecipe>;
}

export interface WaitOptions {
  /** How long to wait for the build; 600 by default (apt may take minutes). */
  timeoutSeconds?: number;
  /** How often to ask; 1 by default. */
  intervalSeconds?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One template: its properties come from the latest answer about it. */
export class Template {
  private latest: TemplateData;

  constructor(
    private readonly connection: Connection,
    data: TemplateData,
  ) {
    this.latest = data;
  }

  /** The full template object of the latest answer. */
  get data(): TemplateData {
    return this.latest;
  }
  get id(): string {
    return this.latest.id;
  }
  get name(): string {
    return this.latest.name;
  }
  /** `building`, then `ready` or `failed`; `deleted` once deleted. */
  get status(): TemplateData['status'] {
    return this.latest.status;
  }
  /** Why its build failed: the end of its build log; null otherwise. */
  get failure(): string | null {
    return this.latest.failure;
  }

  private get params() {
    return { params: { path: { id: this.id } } };
  }

  async refresh(): Promise<this> {
    this.latest = (await bodyOf(this.connection.api.GET('/api/templates/{id}', this.params))).data;
    return this;
  }

  /**
   * Resolves once it is `ready`, asking every `intervalSeconds`; rejects with `ApiError`
   * `template_not_ready` carrying its failure when its build failed, and `timeout` when it is
   * still building after `timeoutSeconds`.
   */
  async waitUntilReady(options: WaitOptions = {}): Promise<this> {
    const deadline = Date.now() + (options.timeoutSeconds ?? 600) * 1000;
    for (;;) {
      if (this.status === 'ready') return this;
      if (this.status === 'failed' || this.status === 'deleted')
        throw new ApiError({
          code: 'template_not_ready',
          status: 409,
          message:
            this.status === 'failed'
              ? `The template \`${this.name}\` (${this.id}) failed to build:\n${this.failure ?? ''}`
              : `The template \`${this.name}\` (${this.id}) was deleted.`,
          param: 'template',
        });
      if (Date.now() >= deadline)
        throw new ApiError({
          code: 'timeout',
          status: 408,
          message: `The template \`${this.name}\` (${this.id}) is still building after ${options.timeoutSeconds ?? 600} s: wait longer, or check its recipe.`,
        });
      await sleep((options.intervalSeconds ?? 1) * 1000);
      await this.refresh();
    }
  }

  /** Deletes it and its files; refused with `template_in_use` while sandboxes or templates stand on it. */
  async delete(): Promise<this> {
    this.latest = (await bodyOf(this.connection.api.DELETE('/api/templates/{id}', this.params))).data;
    return this;
  }
}

export class Templates {
  constructor(private readonly connection: Connection) {}

  /** Starts the build and resolves at once with the template `building`: see `waitUntilReady`. */
  async create(options: CreateTemplateOptions): Promise<Template> {
    const body = { name: options.name, recipe: options.recipe };
    const answer = await bodyOf(this.connection.api.POST('/api/templates', { body }));
    return new Template(this.connection, answer.data);
  }

  /** Newest first. */
  async list(): Promise<Template[]> {
    const answer = await bodyOf(this.connection.api.GET('/api/templates'));
    return answer.data.map((data) => new Template(this.connection, data));
  }

  async get(idOrName: string): Promise<Template> {
    const call = this.connection.api.GET('/api/templates/{id}', { params: { path: { id: idOrName } } });
    return new Template(this.connection, (await bodyOf(call)).data);
  }

  /** Deletes a template by id or name (see `Template.delete`). */
  async delete(idOrName: string): Promise<Template> {
    const call = this.connection.api.DELETE('/api/templates/{id}', { params: { path: { id: idOrName } } });
    return new Template(this.connection, (await bodyOf(call)).data);
  }
}
