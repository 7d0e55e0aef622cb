import type { UsageRecorded } from '../../domain/usage/events.ts';
import type { EventProducer } from '../../producers/producer.ts';
import { publishUsage } from '../../producers/usage.ts';

/**
 * Publishes usage events and resolves once Kafka acknowledged them (billing data is money, so no
 * answer is sent before). Group commit: while one send is in flight, the events of concurrent
 * requests gather and go in the next send, so a busy API makes one round trip per batch rather
 * than per request, and an idle one adds no wait.
 */
export class UsageRecorder {
  private readonly waiting: { event: UsageRecorded; acked: () => void; failed: (error: unknown) => void }[] =
    [];
  private sending = false;

  constructor(
    private readonly producer: EventProducer,
    private readonly timeoutMs: number,
    private readonly maxBatch = 500,
  ) {}

  /** Rejects when Kafka refused the event or did not acknowledge it within the timeout. */
  record(event: UsageRecorded): Promise<void> {
    const acknowledged = new Promise<void>((acked, failed) => this.waiting.push({ event, acked, failed }));
    if (!this.sending) void this.sendWaiting();
    return withTimeout(acknowledged, this.timeoutMs);
  }

  private async sendWaiting(): Promise<void> {
    this.sending = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, this.maxBatch);
        try {
          await publishUsage(
            this.producer,
            batch.map((entry) => entry.event),
          );
          for (const entry of batch) entry.acked();
        } catch (error) {
          for (const entry of batch) entry.failed(error);
        }
      }
    } finally {
      this.sending = false;
    }
  }
}

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not acknowledged within ${ms} ms`)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
