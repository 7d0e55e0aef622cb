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

/** A price in effect for the org (USD per million tokens): its own, or a default it has not replaced. */
export type ModelPrice = DataOf<paths['/api/prices']['get']['responses'][200]>[number];
export type PriceBody = NonNullable<
  paths['/api/prices/{model}']['put']['requestBody']
>['content']['application/json'];

export type OrgDetail = DataOf<paths['/api/orgs/{orgId}']['get']['responses'][200]>;
export type InvitationInfo = DataOf<paths['/api/invitations/{token}']['get']['responses'][200]>;

export type Model = DataOf<paths['/api/inference/models']['get']['responses'][200]>[number];
export type TitleBody = NonNullable<
  paths['/api/inference/{model}/v1/titles']['post']['requestBody']
>['content']['application/json'];
export type PreviewBody = NonNullable<
  paths['/api/inference/{model}/v1/previews']['post']['requestBody']
>['content']['application/json'];
export type InferenceAnswer = Json<paths['/api/inference/{model}/v1/titles']['post']['responses'][200]>;

export type BillingSummary = DataOf<paths['/api/billing/summary']['get']['responses'][200]>;
export type Charge = BillingSummary['charges'][number];

export type RequestsQuery = NonNullable<paths['/api/inference/requests']['get']['parameters']['query']>;
export type RequestsPage = Json<paths['/api/inference/requests']['get']['responses'][200]>;
export type RequestRow = RequestsPage['data'][number];
export type RequestDetail = Json<paths['/api/inference/requests/{requestId}']['get']['responses'][200]>;

export type TracesQuery = NonNullable<paths['/api/traces']['get']['parameters']['query']>;
export type TracesPage = Json<paths['/api/traces']['get']['responses'][200]>;
export type TraceItem = TracesPage['data'][number];
/** A trace as its page draws it: its totals and its span tree in outline. */
export type TraceOutline = DataOf<paths['/api/traces/{traceId}/outline']['get']['responses'][200]>;
/** A node of a trace's outline; the document types its children loosely, they are this shape. */
export type SpanOutline = Omit<TraceOutline['spans'][number], 'children'> & { children: SpanOutline[] };
export type SpanDetail = DataOf<paths['/api/traces/{traceId}/spans/{spanId}']['get']['responses'][200]>;
export type SpanKind = SpanOutline['kind'];
/** A session's page of traces (GET /api/sessions/{sessionId}): its totals and a page of its turns. */
export type SessionQuery = NonNullable<paths['/api/sessions/{sessionId}']['get']['parameters']['query']>;
export type SessionPage = Json<paths['/api/sessions/{sessionId}']['get']['responses'][200]>;
export type SessionDetail = SessionPage['data'];
/** A trace of a session, with its turn: the input and output messages it is read from. */
export type SessionTurn = SessionDetail['traces'][number];
export type TurnSide = NonNullable<SessionTurn['input']>;
export type UserQuery = NonNullable<paths['/api/users/{userId}']['get']['parameters']['query']>;
export type UserPage = Json<paths['/api/users/{userId}']['get']['responses'][200]>;
export type UserDetail = UserPage['data'];
export type UserSession = UserDetail['sessions'][number];
export type UsageRow = Json<paths['/api/analytics/usage']['get']['responses'][200]>['data'][number];
export type LatencyRow = Json<paths['/api/analytics/latency']['get']['responses'][200]>['data'][number];
export type ErrorsRow = Json<paths['/api/analytics/errors']['get']['responses'][200]>['data'][number];

export type Sandbox = DataOf<paths['/api/sandboxes/{id}']['get']['responses'][200]>;
export type Template = DataOf<paths['/api/templates/{id}']['get']['responses'][200]>;
export type TemplateSource = Template['source'];
export type NetworkPolicy = Sandbox['network'];
export type Egress = NetworkPolicy['egress'];
export type Ability = NonNullable<
  paths['/api/sandboxes/{id}/tokens']['post']['requestBody']
>['content']['application/json']['abilities'][number];
