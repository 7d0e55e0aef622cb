import { z } from 'zod';
import { egressModes, type NetworkPolicy } from '../domain/sandboxes/network.ts';

// A network policy as the API answers it, in the sandbox object (api/sandboxes/answers.ts) and the
// run object (run-answer.ts) alike: the same field names as the `network` a body sends.

export const networkObject = z
  .object({
    egress: z
      .enum(egressModes)
      .describe('`open`: the internet, less what is never reachable; `none`: loopback only'),
    allow: z.array(z.string()).describe('when not empty, only these CIDRs and host names are reachable'),
    deny: z
      .array(z.string())
      .describe('CIDRs and host names never reachable, besides the ranges no sandbox reaches'),
  })
  .describe('what the sandbox may reach; host names are resolved when the policy is applied');

export function networkData(policy: NetworkPolicy): z.output<typeof networkObject> {
  return { egress: policy.egress, allow: [...policy.allow], deny: [...policy.deny] };
}
