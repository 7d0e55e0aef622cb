import { readFileSync } from 'node:fs';
import { z } from 'zod';

// How the platform reaches Kafka (ORRERY_KAFKA_*): the bootstrap brokers, TLS and SASL for a
// managed cluster (MSK, Confluent Cloud, Aiven, Redpanda Cloud), and the three timeouts of a
// publish. Read by platform/config.ts; a value that cannot be used stops the start with the
// variable's name and what it expects.

export const saslMechanisms = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;
export type SaslMechanism = (typeof saslMechanisms)[number];

export interface KafkaSettings {
  brokers: string[];
  /** Present when connections use TLS; `ca` absent means the system's trusted authorities. */
  tls?: { ca?: string; certificate?: string; key?: string; keyPassword?: string };
  sasl?: { mechanism: SaslMechanism; username: string; password: string };
  timeouts: PublishTimeouts;
}

/**
 * The three waits of a publish, each bounding a different thing. A caller waits at least as
 * long as a delivery may take, so it learns the record's outcome rather than answering 503 while
 * the client may still deliver it.
 */
export interface PublishTimeouts {
  /** One request to a broker, after which the client retries it (librdkafka's request.timeout.ms). */
  requestMs: number;
  /** From send to a definite outcome, retries included (librdkafka's message.timeout.ms). */
  deliveryMs: number;
  /** How long a caller (an HTTP handler) waits for its records before it gives up (503). */
  callerMs: number;
}

// host:port, the host a name, an IPv4 address or a bracketed IPv6 address.
const brokerAddress = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})$/;

const brokerList = z
  .string()
  .transform((text) => text.split(',').map((broker) => broker.trim()))
  .superRefine((brokers, context) => {
    for (const broker of brokers) {
      const match = brokerAddress.exec(broker);
      const port = Number(match?.[2]);
      if (!match || port < 1 || port > 65535)
        context.addIssue({
          code: 'custom',
          message: `"${broker}" is not host:port; give bootstrap brokers as host:port, separated by commas`,
        });
    }
  });

/** A PEM file's text, refused unless it holds the block `kind` names (CERTIFICATE, PRIVATE KEY). */
function pemFile(kind: 'CERTIFICATE' | 'PRIVATE KEY') {
  return z.string().transform((path, context) => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      context.addIssue({ code: 'custom', message: `cannot read ${path} (${(error as Error).message})` });
      return z.NEVER;
    }
    if (!new RegExp(`-----BEGIN [A-Z ]*${kind}-----`).test(text)) {
      context.addIssue({ code: 'custom', message: `${path} is not a PEM file with a ${kind}` });
      return z.NEVER;
    }
    return text;
  });
}

const milliseconds = z.coerce.number().int().min(100);

/** The ORRERY_KAFKA_* variables, spread into platform/config.ts's environment schema. */
export const kafkaEnvironment = {
  // Unset: every node of the local stack (platform/config.ts).
  ORRERY_KAFKA_BROKERS: brokerList.optional(),
  ORRERY_KAFKA_TLS: z.enum(['true', 'false'], 'use true or false').default('false'),
  ORRERY_KAFKA_TLS_CA: pemFile('CERTIFICATE').optional(),
  ORRERY_KAFKA_TLS_CERT: pemFile('CERTIFICATE').optional(),
  ORRERY_KAFKA_TLS_KEY: pemFile('PRIVATE KEY').optional(),
  ORRERY_KAFKA_TLS_KEY_PASSWORD: z.string().min(1).optional(),
  ORRERY_KAFKA_SASL_MECHANISM: z.enum(saslMechanisms, `use one of ${saslMechanisms.join(', ')}`).optional(),
  ORRERY_KAFKA_SASL_USERNAME: z.string().min(1).optional(),
  ORRERY_KAFKA_SASL_PASSWORD: z.string().min(1).optional(),
  // Short enough that a caller refused while Kafka is away hears so within 2 s, long before an
  // OTLP exporter gives up (10 s): a local or same-region broker acknowledges in milliseconds,
  // and a refused request is retried. A cluster with slow leader elections may want longer.
  ORRERY_KAFKA_REQUEST_TIMEOUT_MS: milliseconds.default(1_000),
  ORRERY_KAFKA_DELIVERY_TIMEOUT_MS: milliseconds.default(1_500),
  ORRERY_PUBLISH_TIMEOUT_MS: milliseconds.default(1_700),
};

type KafkaEnvironment = z.infer<z.ZodObject<typeof kafkaEnvironment>>;

/** The rules between variables, reported on the variable to change. */
export function checkKafkaEnvironment(env: KafkaEnvironment, context: z.RefinementCtx): void {
  const problem = (variable: keyof KafkaEnvironment, message: string) =>
    context.addIssue({ code: 'custom', path: [variable], message });
  if (Boolean(env.ORRERY_KAFKA_TLS_CERT) !== Boolean(env.ORRERY_KAFKA_TLS_KEY))
    problem(
      env.ORRERY_KAFKA_TLS_CERT ? 'ORRERY_KAFKA_TLS_KEY' : 'ORRERY_KAFKA_TLS_CERT',
      'a client certificate needs both ORRERY_KAFKA_TLS_CERT and ORRERY_KAFKA_TLS_KEY',
    );
  if (env.ORRERY_KAFKA_TLS_KEY_PASSWORD && !env.ORRERY_KAFKA_TLS_KEY)
    problem('ORRERY_KAFKA_TLS_KEY_PASSWORD', 'set only with ORRERY_KAFKA_TLS_KEY');
  if (env.ORRERY_KAFKA_SASL_MECHANISM) {
    if (!env.ORRERY_KAFKA_SASL_USERNAME)
      problem('ORRERY_KAFKA_SASL_USERNAME', 'required with a SASL mechanism');
    if (!env.ORRERY_KAFKA_SASL_PASSWORD)
      problem('ORRERY_KAFKA_SASL_PASSWORD', 'required with a SASL mechanism');
  } else {
    for (const variable of ['ORRERY_KAFKA_SASL_USERNAME', 'ORRERY_KAFKA_SASL_PASSWORD'] as const)
      if (env[variable])
        problem(variable, `set only with ORRERY_KAFKA_SASL_MECHANISM (${saslMechanisms.join(', ')})`);
  }
  if (env.ORRERY_KAFKA_DELIVERY_TIMEOUT_MS < env.ORRERY_KAFKA_REQUEST_TIMEOUT_MS)
    problem(
      'ORRERY_KAFKA_DELIVERY_TIMEOUT_MS',
      `at least ORRERY_KAFKA_REQUEST_TIMEOUT_MS (${env.ORRERY_KAFKA_REQUEST_TIMEOUT_MS}): a delivery includes its requests`,
    );
  if (env.ORRERY_PUBLISH_TIMEOUT_MS < env.ORRERY_KAFKA_DELIVERY_TIMEOUT_MS)
    problem(
      'ORRERY_PUBLISH_TIMEOUT_MS',
      `at least ORRERY_KAFKA_DELIVERY_TIMEOUT_MS (${env.ORRERY_KAFKA_DELIVERY_TIMEOUT_MS}), so a caller learns each record's outcome`,
    );
}

/** The settings; `localBrokers` are the bootstrap brokers when ORRERY_KAFKA_BROKERS is unset. */
export function kafkaSettings(env: KafkaEnvironment, localBrokers: string[]): KafkaSettings {
  const usesTls =
    env.ORRERY_KAFKA_TLS === 'true' || Boolean(env.ORRERY_KAFKA_TLS_CA || env.ORRERY_KAFKA_TLS_CERT);
  return {
    brokers: env.ORRERY_KAFKA_BROKERS ?? localBrokers,
    tls: usesTls
      ? {
          ca: env.ORRERY_KAFKA_TLS_CA,
          certificate: env.ORRERY_KAFKA_TLS_CERT,
          key: env.ORRERY_KAFKA_TLS_KEY,
          keyPassword: env.ORRERY_KAFKA_TLS_KEY_PASSWORD,
        }
      : undefined,
    sasl:
      env.ORRERY_KAFKA_SASL_MECHANISM && env.ORRERY_KAFKA_SASL_USERNAME && env.ORRERY_KAFKA_SASL_PASSWORD
        ? {
            mechanism: env.ORRERY_KAFKA_SASL_MECHANISM,
            username: env.ORRERY_KAFKA_SASL_USERNAME,
            password: env.ORRERY_KAFKA_SASL_PASSWORD,
          }
        : undefined,
    timeouts: {
      requestMs: env.ORRERY_KAFKA_REQUEST_TIMEOUT_MS,
      deliveryMs: env.ORRERY_KAFKA_DELIVERY_TIMEOUT_MS,
      callerMs: env.ORRERY_PUBLISH_TIMEOUT_MS,
    },
  };
}
