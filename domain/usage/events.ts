// The usage stream's one fact (topic orrery.usage.v1): an answered inference request, fallbacks
// included, 502s excluded (000, Billing rules). Billing and the request log are built from it.

export const inferenceEndpoints = ['titles', 'previews'] as const;
export type InferenceEndpoint = (typeof inferenceEndpoints)[number];

export interface UsageRecorded {
  type: 'UsageRecorded';
  eventId: string;
  orgId: string;
  occurredAt: Date;
  requestId: string;
  keyId: string;
  model: string;
  endpoint: InferenceEndpoint;
  inputTokens: number;
  outputTokens: number;
  fallback: boolean;
  /** The model's time for the request. */
  latencyMs: number;
}
