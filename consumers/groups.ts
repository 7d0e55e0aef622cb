// Every consumer group of the platform. Each has a dead-letter topic created by provisioning.
export const consumerGroupIds = [
  'orrery-org-postgres',
  'orrery-person-postgres',
  'orrery-usage-clickhouse',
  'orrery-usage-postgres',
  'orrery-spans-clickhouse',
  'orrery-sandbox-postgres',
  'orrery-run-postgres',
  'orrery-template-postgres',
] as const;

export type ConsumerGroupId = (typeof consumerGroupIds)[number];
