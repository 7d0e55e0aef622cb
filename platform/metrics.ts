import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** One Prometheus registry per process, served at /metrics. */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

export const httpRequestDuration = new Histogram({
  name: 'orrery_http_request_duration_seconds',
  help: 'HTTP request latency by route and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [metricsRegistry],
});

export const messagesProduced = new Counter({
  name: 'orrery_kafka_messages_produced_total',
  help: 'Messages acknowledged by Kafka, by topic',
  labelNames: ['topic'] as const,
  registers: [metricsRegistry],
});

export const messagesConsumed = new Counter({
  name: 'orrery_kafka_messages_consumed_total',
  help: 'Messages projected and committed, by consumer group and topic',
  labelNames: ['group', 'topic'] as const,
  registers: [metricsRegistry],
});

export const messagesDeadLettered = new Counter({
  name: 'orrery_kafka_messages_dead_lettered_total',
  help: 'Messages sent to a dead-letter topic, by consumer group and reason',
  labelNames: ['group', 'reason'] as const,
  registers: [metricsRegistry],
});

export const consumerLag = new Gauge({
  name: 'orrery_kafka_consumer_lag_messages',
  help: 'High watermark minus the next offset to consume, by group, topic and partition',
  labelNames: ['group', 'topic', 'partition'] as const,
  registers: [metricsRegistry],
});

export const projectionBatchSize = new Histogram({
  name: 'orrery_projection_batch_size',
  help: 'Messages per projected batch',
  labelNames: ['group'] as const,
  buckets: [1, 10, 100, 500, 1000, 5000, 10000, 50000],
  registers: [metricsRegistry],
});

export const projectionBatchDuration = new Histogram({
  name: 'orrery_projection_batch_duration_seconds',
  help: 'Time to project one batch into its store',
  labelNames: ['group'] as const,
  buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

export const ingestPhaseDuration = new Histogram({
  name: 'orrery_otlp_ingest_phase_seconds',
  help: 'Time per OTLP request (read, decode, normalize) or per admitted group (lease, ledger_read, decide, publish, then ledger_write: what the ledger write, run during the publish, still took after Kafka acknowledged)',
  labelNames: ['phase'] as const,
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [metricsRegistry],
});

export const spansReceived = new Counter({
  name: 'orrery_otlp_spans_total',
  help: 'Spans received on the OTLP endpoint, by verdict (accepted, duplicate, or the refusal reason)',
  labelNames: ['verdict'] as const,
  registers: [metricsRegistry],
});

export const jobRuns = new Counter({
  name: 'orrery_job_runs_total',
  help: 'Runs of the periodic jobs, by job and outcome',
  labelNames: ['job', 'outcome'] as const,
  registers: [metricsRegistry],
});
