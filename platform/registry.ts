import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import protobuf from 'protobufjs';
import { schemaText, valueType } from '../schemas/events/index.ts';
import { type StreamName, topics, valueSubject } from '../schemas/events/topics.ts';
import { config } from './config.ts';

// Apicurio serves the Confluent-compatible API under this path.
const ccompatPath = '/apis/ccompat/v7';

export function registryUrl(base = config().registry.url): string {
  return `${base}${ccompatPath}`;
}

/** Each client's Confluent-compatible API, for the calls the library does not make. */
const apiOf = new WeakMap<SchemaRegistry, string>();

/** A client of the registry this process is configured with, or of the one at `url`. */
export function createRegistry(url = config().registry.url): SchemaRegistry {
  const registry = new SchemaRegistry({ host: registryUrl(url) });
  apiOf.set(registry, registryUrl(url));
  return registry;
}

async function putCompatibility(
  registry: SchemaRegistry,
  path: string,
  compatibility: 'BACKWARD',
): Promise<Response> {
  return fetch(`${apiOf.get(registry) ?? registryUrl()}${path}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
    body: JSON.stringify({ compatibility }),
  });
}

/**
 * Registers a stream's value schema under its topic's subject with BACKWARD compatibility, so an
 * incompatible change is refused by the registry. Idempotent: the same text returns the same id.
 */
export function registerValueSchema(registry: SchemaRegistry, stream: StreamName): Promise<number> {
  return registerSchema(registry, valueSubject(topics[stream].name), schemaText(topics[stream]));
}

export async function registerSchema(
  registry: SchemaRegistry,
  subject: string,
  text: string,
): Promise<number> {
  await putCompatibility(registry, '/config', 'BACKWARD');
  const existing = await fetch(`${apiOf.get(registry) ?? registryUrl()}/subjects/${subject}/versions`);
  if (existing.ok) await putCompatibility(registry, `/config/${subject}`, 'BACKWARD');
  const { id } = await registry.register({ type: SchemaType.PROTOBUF, schema: text }, { subject });
  if (!existing.ok) await putCompatibility(registry, `/config/${subject}`, 'BACKWARD');
  return id;
}

/**
 * Confluent wire format for protobuf: magic byte 0, the schema id (4 bytes, big-endian), the
 * message-index path (a single 0 byte: the first message of the schema), then the payload.
 * Written here rather than by the library, whose encoder omits the message index that other
 * Confluent-compatible consumers expect; its decoder reads both forms.
 */
export function frameHeader(schemaId: number): Buffer {
  const header = Buffer.alloc(6);
  header.writeUInt32BE(schemaId, 1);
  return header;
}

/**
 * Where the protobuf payload of a Confluent-framed value starts: after the magic byte, the schema
 * id and the message-index path (a zigzag varint count, then that many indexes; 0 for the
 * schema's first message). Throws on a value that is not framed so.
 */
export function framedPayload(value: Uint8Array): number {
  if (value.length < 6 || value[0] !== 0) throw new Error('not a Confluent-framed value (magic byte 0)');
  const r = protobuf.Reader.create(value);
  r.pos = 5;
  try {
    for (let indexes = r.sint32(); indexes > 0; indexes -= 1) r.sint32();
  } catch (error) {
    throw new Error('the framed value ends inside its message index, or it is not varints', { cause: error });
  }
  return r.pos;
}

export interface StreamCodec<T> {
  readonly stream: StreamName;
  readonly schemaId: number;
  /** The frame header of every value: for a writer that puts it before the payload itself. */
  readonly header: Buffer;
  encode(value: T): Buffer;
}

const needsConversion = new WeakMap<protobuf.Type, boolean>();

/** Whether a type (or any message inside it) has enum or map fields, which `fromObject` converts. */
function convertsFields(type: protobuf.Type, seen = new Set<protobuf.Type>()): boolean {
  const known = needsConversion.get(type);
  if (known !== undefined) return known;
  seen.add(type);
  const converts = type.fieldsArray.some((field) => {
    const resolved = field.resolve();
    if (resolved.map || resolved.resolvedType instanceof protobuf.Enum) return true;
    const nested = resolved.resolvedType;
    return nested instanceof protobuf.Type && !seen.has(nested) && convertsFields(nested, seen);
  });
  needsConversion.set(type, converts);
  return converts;
}

/**
 * A wire object (from schemas/events/*-mapping.ts) as protobuf bytes. protobufjs encodes plain
 * objects directly when no enum or map needs converting; skipping `fromObject` then halved the
 * cost of the span events when they were encoded here (they have their own writer now,
 * schemas/events/spans-encode.ts). The mappings are typed and round-trip tested.
 */
export function encodeWire(type: protobuf.Type, value: object): Uint8Array {
  const message = convertsFields(type) ? type.fromObject(value) : (value as protobuf.Message);
  return type.encode(message).finish();
}

/** Encodes values of one stream with the schema id the registry gave its text. */
export function streamCodec<T extends object>(stream: StreamName, schemaId: number): StreamCodec<T> {
  const type: protobuf.Type = valueType(stream);
  const header = frameHeader(schemaId);
  return {
    stream,
    schemaId,
    header,
    encode: (value: T) => Buffer.concat([header, encodeWire(type, value)]),
  };
}

/** How decoded values are read: int64 as decimal strings, the set oneof named in its field. */
export const wireObjectOptions: protobuf.IConversionOptions = {
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

/** Decodes any framed value with the writer's schema, fetched from the registry by id. */
export async function decodeValue(
  registry: SchemaRegistry,
  buffer: Buffer,
): Promise<Record<string, unknown>> {
  const message = (await registry.decode(buffer)) as protobuf.Message;
  return message.$type.toObject(message, wireObjectOptions);
}
