import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import { type StreamName, type TopicSpec, topics } from './topics.ts';

/** The .proto text of a topic's values: what is registered and what encodes. */
export function schemaText(topic: TopicSpec): string {
  return readFileSync(new URL(topic.schemaFile, import.meta.url), 'utf8');
}

const types = new Map<string, protobuf.Type>();

/** The protobufjs type of a stream's values, parsed once from the same text the registry holds. */
export function valueType(stream: StreamName): protobuf.Type {
  const topic = topics[stream];
  let type = types.get(topic.name);
  if (!type) {
    type = protobuf.parse(schemaText(topic)).root.lookupType(topic.messageType);
    types.set(topic.name, type);
  }
  return type;
}
