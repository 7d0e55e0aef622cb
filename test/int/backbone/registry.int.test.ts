import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createRegistry, registerSchema, registerValueSchema } from '../../../platform/registry.ts';
import { schemaText } from '../../../schemas/events/index.ts';
import { topics } from '../../../schemas/events/topics.ts';

const original = schemaText(topics.org);

describe('the schema registry (Apicurio, Confluent-compatible API)', () => {
  it('registers each stream idempotently: the same text keeps its id', async () => {
    const registry = createRegistry();
    const first = await registerValueSchema(registry, 'org');
    expect(await registerValueSchema(registry, 'org')).toBe(first);
  });

  it('refuses a change that breaks BACKWARD compatibility, and accepts one that keeps it', async () => {
    const registry = createRegistry();
    const subject = `orrery.compat-test-${randomUUID()}-value`;
    await registerSchema(registry, subject, original);

    // Readers of the new schema could not read old data: a field's type changed.
    const incompatible = original.replace('string org_id = 2;', 'int64 org_id = 2;');
    expect(incompatible).not.toBe(original);
    await expect(registerSchema(registry, subject, incompatible)).rejects.toThrow(/compatib|409|Conflict/i);

    // Adding an optional field is a compatible change.
    const compatible = original.replace(
      'message OrgCreated {\n  string name = 1;',
      'message OrgCreated {\n  string name = 1;\n  string region = 2;',
    );
    expect(compatible).not.toBe(original);
    await expect(registerSchema(registry, subject, compatible)).resolves.toBeGreaterThan(0);
  });
});
