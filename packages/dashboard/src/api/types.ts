import type { paths } from './openapi.generated.ts';

// The shapes the dashboard reads, named once from the generated document's answers.

type Json<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : never;
type DataOf<Response> = Json<Response> extends { data: infer Data } ? Data : never;

export type Session = DataOf<paths['/api/auth/session']['get']['responses'][200]>;
export type Membership = Session['orgs'][number];
export type Role = Membership['role'];

export type ApiKey = DataOf<paths['/api/orgs/{orgId}/keys']['get']['responses'][200]>[number];
export type NewApiKey = DataOf<paths['/api/orgs/{orgId}/keys']['post']['responses'][201]>;
export type Scope = ApiKey['scopes'][number];

export type OrgPeople = DataOf<paths['/api/orgs/{orgId}/members']['get']['responses'][200]>;
export type Member = OrgPeople['members'][number];
export type OpenInvitation = OrgPeople['invitations'][number];
export type NewInvitation = DataOf<paths['/api/orgs/{orgId}/invitations']['post']['responses'][201]>;

export type DeviceLogin = DataOf<paths['/api/auth/device/{userCode}']['get']['responses'][200]>;

/** The scopes a key may be given, in the order Settings offers them, each said plainly. */
export const scopeChoices = [
  {
    scope: 'inference:invoke',
    description: 'titles and previews from the models (billed per input token)',
  },
  { scope: 'traces:write', description: 'send traces over OTLP' },
  { scope: 'sandboxes:write', description: 'create and drive sandboxes' },
] as const satisfies readonly { scope: Scope; description: string }[];

type Unoffered = Exclude<Scope, (typeof scopeChoices)[number]['scope']>;
/** Fails to compile when the API has a scope Settings does not offer. */
export type EveryScopeOffered = [Unoffered] extends [never] ? true : { unoffered: Unoffered };
export const everyScopeOffered: EveryScopeOffered = true;
