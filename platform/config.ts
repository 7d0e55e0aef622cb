import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { fleetEnvironment, fleetSettings } from './fleet-settings.ts';
import { checkHttpEnvironment, httpEnvironment, httpSettings } from './http-settings.ts';
import { checkKafkaEnvironment, kafkaEnvironment, kafkaSettings } from './kafka-settings.ts';

// The one typed config module: every process reads its settings here, from the environment,
// with defaults that point at the local stack (`infra/`).
const portNumber = z.coerce.number().int().min(1).max(65535);

/** The sandbox token secret when ORRERY_TOKEN_SECRET is unset; the API warns at start-up. */
export const developmentTokenSecret = 'orrery-development-token-secret-do-not-use-in-production';

const environmentSchema = z
  .object({
    ORRERY_API_HOST: z.string().default('127.0.0.1'),
    ORRERY_API_PORT: portNumber.default(8080),
    ORRERY_CONSUMERS_PORT: portNumber.default(8090),
    ORRERY_JOBS_PORT: portNumber.default(8091),
    ...httpEnvironment,
    ORRERY_POST_CHARGES_EVERY_SECONDS: z.coerce.number().int().min(1).default(300),
    ORRERY_RETENTION_EVERY_SECONDS: z.coerce.number().int().min(1).default(3600),
    ORRERY_SPAN_FACTS_COMPACTION_EVERY_SECONDS: z.coerce.number().int().min(1).default(60),
    ORRERY_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    // Command-line tools log to stderr, so their stdout is only what they print (JSON with --json).
    ORRERY_LOG_DESTINATION: z.enum(['stdout', 'stderr']).default('stdout'),
    ORRERY_STACK_DIR: z.string().default('.stack'),
    ORRERY_SANDBOX_DIR: z.string().default('.sandboxes'),
    ...kafkaEnvironment,
    ORRERY_KAFKA_CONTROLLER_PORT: portNumber.default(19093),
    // The local stack's Kafka: one node, or three (replication factor 3, min.insync.replicas 2).
    ORRERY_STACK_KAFKA_NODES: z.enum(['1', '3'], 'use 1 or 3').default('1'),
    ORRERY_REGISTRY_URL: z.url().default('http://127.0.0.1:18081'),
    ORRERY_CLICKHOUSE_URL: z.url().default('http://127.0.0.1:18123'),
    ORRERY_CLICKHOUSE_NATIVE_PORT: portNumber.default(19000),
    ORRERY_CLICKHOUSE_DATABASE: z
      .string()
      .regex(/^[a-z_][a-z0-9_]*$/)
      .default('orrery'),
    ORRERY_POSTGRES_URL: z.url().default('postgres://orrery:orrery@127.0.0.1:15432/orrery'),
    // The bound on each statement a request makes (the API's pools): past it, the request is 503.
    ORRERY_POSTGRES_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).default(1_500),
    ORRERY_TOPIC_PARTITIONS: z.coerce.number().int().min(1).default(4),
    // Copies of each topic provisioning creates; by default as many as the local stack has nodes.
    ORRERY_TOPIC_REPLICATION_FACTOR: z.coerce.number().int().min(1).max(7).optional(),
    ORRERY_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
    // Unset: the local stack's default model (below); set, it replaces that model.
    ORRERY_MODELS: z.string().optional(),
    // Unset: served only while ORRERY_MODELS is unset; `on` keeps it beside ORRERY_MODELS' list.
    ORRERY_DEFAULT_MODEL: z.enum(['on', 'off'], 'use on or off').optional(),
    ORRERY_DEFAULT_MODEL_PORT: portNumber.default(18082),
    ORRERY_DEFAULT_MODEL_THREADS: z.coerce.number().int().min(1).max(64).default(1),
    // SmolLM2 was trained on 8,192 tokens: the spec's reduced inputs (about 12,000 characters) fit.
    ORRERY_DEFAULT_MODEL_CONTEXT: z.coerce.number().int().min(512).max(8192).default(8192),
    // Signs sandbox tokens (api/auth/sandbox-tokens.ts); the default is for development only.
    ORRERY_TOKEN_SECRET: z.string().min(32, 'use at least 32 characters').default(developmentTokenSecret),
    ORRERY_SANDBOX_IDLE_CHECK_SECONDS: z.coerce.number().int().min(1).default(15),
    ...fleetEnvironment,
  })
  .superRefine(checkKafkaEnvironment)
  .superRefine(checkHttpEnvironment);

/**
 * The chat-completions fields the service writes itself (api/inference/upstream.ts; its int test
 * holds the body it sends to this list).
 */
export const serviceBodyFields = new Set([
  'model',
  'messages',
  'max_tokens',
  'temperature',
  'stop',
  'stream',
  'continue_final_message',
  'add_generation_prompt',
]);

// The models of the title and preview service (spec 000), each served by an OpenAI-compatible
// chat-completions endpoint (vLLM, llama.cpp's server, Ollama, hosted gateways). A model without
// `baseUrl` is known but not deployed: it answers 503 not_configured.
const inferenceModel = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, 'a model name is letters, digits and . _ : -'),
  writes: z.array(z.enum(['titles', 'previews'])).min(1),
  /** The endpoint's base, up to and including `/v1`; `/chat/completions` is added to it. */
  baseUrl: z.url().optional(),
  /** The `model` sent upstream (vLLM's served model name); the name by default. */
  upstreamModel: z.string().min(1).optional(),
  apiKey: z.string().min(1).optional(),
  /** The whole budget of one request upstream, retries included. */
  timeoutMs: z.number().int().positive().default(10_000),
  /** Further attempts after a refused connection or a 5xx, within the budget. */
  retries: z.number().int().min(0).max(5).default(1),
  maxTokens: z.number().int().positive().default(64),
  /**
   * The endpoint continues a final assistant message (llama.cpp's server, Ollama, vLLM, which is
   * sent `continue_final_message`): the answer is started for the model with its label and ends
   * at the first line break (docs/inference-prompts.md). Off by default: OpenAI's API answers a
   * final assistant message with a new one.
   */
  answerPrefix: z.boolean().default(false),
  /**
   * Further fields of the chat-completions body, sent as they are: a server's own sampling
   * options (llama.cpp's `dry_multiplier`, vLLM's `repetition_penalty`), like the OpenAI SDKs'
   * `extra_body`. The fields the service sets itself are refused here, not overridden.
   */
  extraBody: z
    .record(z.string(), z.json())
    .refine((body) => !Object.keys(body).some((field) => serviceBodyFields.has(field)), {
      message: `leave out ${[...serviceBodyFields].join(', ')}: the service sets them (max_tokens is maxTokens)`,
    })
    .optional(),
});
export type InferenceModelConfig = z.infer<typeof inferenceModel>;

const inferenceModels = z
  .array(inferenceModel)
  .refine((models) => new Set(models.map((m) => m.name)).size === models.length, 'model names repeat');

/** ORRERY_MODELS: a JSON array of models, or the path of a file holding one. */
export function parseModels(text: string): InferenceModelConfig[] {
  let json: unknown;
  try {
    json = JSON.parse(text.trim().startsWith('[') ? text : readFileSync(text.trim(), 'utf8'));
  } catch (error) {
    throw new Error(`Invalid ORRERY_MODELS: give a JSON array or a file holding one (${String(error)})`);
  }
  const parsed = inferenceModels.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid ORRERY_MODELS, fix: ${problems.join('; ')}`);
  }
  return parsed.data;
}

/**
 * The default model (issue 13): SmolLM2-135M-Instruct, served by llama.cpp's server as a part of
 * the local stack (infra/stack/model.ts) on the loopback, so titles and previews work with no
 * configuration. Served while ORRERY_MODELS is unset and ORRERY_DEFAULT_MODEL is not `off`, or
 * beside ORRERY_MODELS' list with ORRERY_DEFAULT_MODEL=on.
 */
export interface LocalModel {
  name: string;
  port: number;
  /** llama.cpp's inference threads, for the prompt and for the answer. */
  threads: number;
  /** The context window in tokens: the longest prompt plus answer it takes. */
  contextTokens: number;
}

export const defaultModelName = 'smollm2-135m';

/**
 * The models served, and the local one the stack runs (and its watcher restarts) whenever a
 * served model points at it: the default model, or one of ORRERY_MODELS at its address.
 */
export function inferenceSettings(env: {
  ORRERY_MODELS?: string | undefined;
  ORRERY_DEFAULT_MODEL?: 'on' | 'off' | undefined;
  ORRERY_DEFAULT_MODEL_PORT: number;
  ORRERY_DEFAULT_MODEL_THREADS: number;
  ORRERY_DEFAULT_MODEL_CONTEXT: number;
}): { models: InferenceModelConfig[]; localModel: LocalModel | undefined } {
  const localModel: LocalModel = {
    name: defaultModelName,
    port: env.ORRERY_DEFAULT_MODEL_PORT,
    threads: env.ORRERY_DEFAULT_MODEL_THREADS,
    contextTokens: env.ORRERY_DEFAULT_MODEL_CONTEXT,
  };
  const listed = env.ORRERY_MODELS === undefined ? [] : parseModels(env.ORRERY_MODELS);
  const withDefault =
    env.ORRERY_DEFAULT_MODEL === 'on' ||
    (env.ORRERY_MODELS === undefined && env.ORRERY_DEFAULT_MODEL !== 'off');
  if (withDefault && listed.some((model) => model.name === defaultModelName))
    throw new Error(
      `Invalid ORRERY_MODELS: it names ${defaultModelName}, which ORRERY_DEFAULT_MODEL=on adds beside it; rename yours, or set ORRERY_DEFAULT_MODEL=off`,
    );
  const models = withDefault ? [...listed, defaultModel(localModel)] : listed;
  const pointsAtLocal = models.some(
    (model) => model.baseUrl !== undefined && servedAt(model.baseUrl, localModel.port),
  );
  return { models, localModel: pointsAtLocal ? localModel : undefined };
}

/** Whether `baseUrl` is this machine's loopback at `port`, where the stack serves the default model. */
function servedAt(baseUrl: string, port: number): boolean {
  const url = new URL(baseUrl);
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  return loopback && Number(url.port || (url.protocol === 'https:' ? 443 : 80)) === port;
}

function defaultModel(localModel: LocalModel): InferenceModelConfig {
  return {
    name: localModel.name,
    writes: ['titles', 'previews'],
    baseUrl: `http://127.0.0.1:${localModel.port}/v1`,
    // One CPU thread reads about 60 prompt tokens a second (bench/quality.ts): a chat at the
    // spec's whole budget (about 3,500 tokens) takes about a minute, and a slow answer is still
    // better than none (502).
    timeoutMs: 120_000,
    // A refused connection is the part restarting (the stack's watcher): worth one more try.
    retries: 1,
    maxTokens: 64,
    // llama.cpp's server continues a final assistant message: a 135M model needs its answer started.
    answerPrefix: true,
    // llama.cpp's DRY sampler: a small model at temperature 0 otherwise repeats a token run until
    // max_tokens (`10kg to 3.5kg to 3.5kg …`). Tuned on the quality bench's tuning half
    // (docs/inference-prompts.md); 0.8 is llama.cpp's suggested strength.
    extraBody: { dry_multiplier: 0.8 },
  };
}

export type Config = ReturnType<typeof parseConfig>;

/** The local stack's Kafka node i (from 0) listens this many ports above node 0, as client and controller. */
export const kafkaNodePortStep = 10;

/** The local stack's brokers, every node: the platform then starts while any one node is down. */
function localStackBrokers(nodes: number): string[] {
  return Array.from({ length: nodes }, (_, node) => `127.0.0.1:${19092 + kafkaNodePortStep * node}`);
}

export function parseConfig(environment: NodeJS.ProcessEnv = process.env) {
  const parsed = environmentSchema.safeParse(environment);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration, fix these environment variables: ${problems.join('; ')}`);
  }
  const env = parsed.data;
  const postgres = new URL(env.ORRERY_POSTGRES_URL);
  return {
    api: { host: env.ORRERY_API_HOST, port: env.ORRERY_API_PORT },
    http: httpSettings(env),
    consumers: { port: env.ORRERY_CONSUMERS_PORT },
    jobs: {
      port: env.ORRERY_JOBS_PORT,
      postChargesEverySeconds: env.ORRERY_POST_CHARGES_EVERY_SECONDS,
      retentionEverySeconds: env.ORRERY_RETENTION_EVERY_SECONDS,
      spanFactsCompactionEverySeconds: env.ORRERY_SPAN_FACTS_COMPACTION_EVERY_SECONDS,
    },
    logLevel: env.ORRERY_LOG_LEVEL,
    logDestination: env.ORRERY_LOG_DESTINATION,
    shutdownGraceMs: env.ORRERY_SHUTDOWN_GRACE_MS,
    inference: inferenceSettings(env),
    // Absolute: a relative ORRERY_STACK_DIR is under the working directory (the project's root).
    stackDir: resolve(env.ORRERY_STACK_DIR),
    sandboxDir: env.ORRERY_SANDBOX_DIR,
    sandboxes: {
      tokenSecret: env.ORRERY_TOKEN_SECRET,
      idleCheckSeconds: env.ORRERY_SANDBOX_IDLE_CHECK_SECONDS,
    },
    fleet: fleetSettings(env),
    kafka: {
      ...kafkaSettings(env, localStackBrokers(Number(env.ORRERY_STACK_KAFKA_NODES))),
      controllerPort: env.ORRERY_KAFKA_CONTROLLER_PORT,
      partitions: env.ORRERY_TOPIC_PARTITIONS,
      stackNodes: Number(env.ORRERY_STACK_KAFKA_NODES) as 1 | 3,
      replicationFactor: env.ORRERY_TOPIC_REPLICATION_FACTOR ?? Number(env.ORRERY_STACK_KAFKA_NODES),
    },
    registry: { url: env.ORRERY_REGISTRY_URL.replace(/\/$/, '') },
    clickhouse: {
      url: env.ORRERY_CLICKHOUSE_URL,
      nativePort: env.ORRERY_CLICKHOUSE_NATIVE_PORT,
      database: env.ORRERY_CLICKHOUSE_DATABASE,
    },
    postgres: {
      url: env.ORRERY_POSTGRES_URL,
      host: postgres.hostname,
      port: Number(postgres.port || 5432),
      user: decodeURIComponent(postgres.username),
      password: decodeURIComponent(postgres.password),
      database: postgres.pathname.replace(/^\//, ''),
      statementTimeoutMs: env.ORRERY_POSTGRES_STATEMENT_TIMEOUT_MS,
    },
  };
}

let loaded: Config | undefined;

/** The process's configuration, parsed once from the environment. */
export function config(): Config {
  loaded ??= parseConfig();
  return loaded;
}
