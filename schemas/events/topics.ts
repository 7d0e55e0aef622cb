// One topic per stream of facts (DESIGN.md, "Topics and schemas"): name, key, value schema,
// partitions and retention. Source-of-truth streams keep their data forever; spans 31 days.
// A topic and the schema of its values are one fact, so the table sits beside the .proto files,
// below platform/ (whose registry client registers and reads them).
const forever = -1;
const days = (n: number) => n * 24 * 60 * 60 * 1000;

export interface TopicSpec {
  readonly name: string;
  /** The .proto file under schemas/events/ holding the value type. */
  readonly schemaFile: string;
  /** The value's message type, fully qualified. */
  readonly messageType: string;
  /** What the key is, for readers of this table; producers set it. */
  readonly key: string;
  readonly retentionMs: number;
}

export const topics = {
  org: {
    name: 'orrery.org.v1',
    schemaFile: 'org.proto',
    messageType: 'orrery.org.v1.OrgEvent',
    key: 'org id',
    retentionMs: forever,
  },
  person: {
    name: 'orrery.person.v1',
    schemaFile: 'person.proto',
    messageType: 'orrery.person.v1.PersonEvent',
    key: 'person id',
    retentionMs: forever,
  },
  usage: {
    name: 'orrery.usage.v1',
    schemaFile: 'usage.proto',
    messageType: 'orrery.usage.v1.UsageRecorded',
    key: 'org id',
    retentionMs: forever,
  },
  sandbox: {
    name: 'orrery.sandbox.v1',
    schemaFile: 'sandbox.proto',
    messageType: 'orrery.sandbox.v1.SandboxEvent',
    key: 'sandbox id',
    retentionMs: forever,
  },
  run: {
    name: 'orrery.run.v1',
    schemaFile: 'run.proto',
    messageType: 'orrery.run.v1.RunEvent',
    key: 'run id',
    retentionMs: forever,
  },
  template: {
    name: 'orrery.template.v1',
    schemaFile: 'template.proto',
    messageType: 'orrery.template.v1.TemplateEvent',
    key: 'template id',
    retentionMs: forever,
  },
  spans: {
    name: 'orrery.spans.v1',
    schemaFile: 'spans.proto',
    messageType: 'orrery.spans.v1.SpanEvent',
    key: 'org id; placed on the partition of org id/trace id (producers/spans.ts)',
    retentionMs: days(31),
  },
} as const satisfies Record<string, TopicSpec>;

export type StreamName = keyof typeof topics;

/** Each consumer group has its own dead-letter topic; kept as long as the spans are. */
export function deadLetterTopic(groupId: string): string {
  return `orrery.dlq.${groupId}.v1`;
}

export const deadLetterRetentionMs = days(31);

/** The registry subject of a topic's values (Confluent's TopicNameStrategy). */
export function valueSubject(topic: string): string {
  return `${topic}-value`;
}
