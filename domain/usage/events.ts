// The usage stream's one fact (topic orrery.usage.v1): an answered inference request, fallbacks
// included, 502s excluded (000, Billing rules), or a stretch of a run's time on hardware (issue
// 16). Billing and the request log are built from it.

export const inferenceEndpoints = ['titles', 'previews'] as const;
export type InferenceEndpoint = (typeof inferenceEndpoints)[number];

/**
 * `runs`: time on hardware, metered by the API's runner (api/runs/runner.ts). Its `model` is the
 * size's meter (`run:small`…, domain/billing/price.ts), its `requestId` names the run and the
 * stretch of seconds it covers, so a redelivered or republished record counts once, like a request.
 */
export const usageEndpoints = [...inferenceEndpoints, 'runs'] as const;
export type UsageEndpoint = (typeof usageEndpoints)[number];

export interface UsageRecorded {
  type: 'UsageRecorded';
  eventId: string;
  orgId: string;
  occurredAt: Date;
  requestId: string;
  /** The key that made the request or placed the run (the request log's "key that made it"); '' for a session. */
  keyId: string;
  /**
   * The person whose dashboard session sent the request (the Playground); absent for a key's
   * request and for a run's stretch, and in events recorded before it existed.
   */
  personId?: string;
  model: string;
  endpoint: UsageEndpoint;
  inputTokens: number;
  outputTokens: number;
  fallback: boolean;
  /** The model's time for the request. */
  latencyMs: number;
  /** Seconds on hardware (endpoint `runs`); absent for an inference request. */
  seconds?: number;
}
