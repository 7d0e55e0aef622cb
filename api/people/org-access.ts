import { z } from 'zod';
import type { OrgState } from '../../domain/orgs/org.ts';
import type { OrgDirectory } from '../auth/org-directory.ts';
import { ApiError } from '../errors.ts';

// The org a people route's path names, as the person in the session may see it.

export const orgParams = z.object({ orgId: z.string().max(100) });

const notAMember = () =>
  new ApiError(
    'org_not_found',
    404,
    'You are not a member of this org: pick one of yours from GET /api/auth/session.',
  );

/** The org in the path, if the person belongs to it (else 404: it reveals nothing). */
export function memberOrgOf(directory: OrgDirectory, orgId: string, personId: string): OrgState {
  const org = directory.memberOrg(orgId, personId);
  if (!org) throw notAMember();
  return org;
}
