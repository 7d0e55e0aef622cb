import type { paths } from './openapi.generated.js';

// The API's answers and bodies that the package's classes take and give, named once, from the
// generated document: a change on the server that breaks the package fails its type check.

type Json<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
type DataOf<T> = Json<T> extends { data: infer Data } ? Data : never;

/** The sandbox object of the latest answer (`Sandbox.data`). */
export type SandboxData = DataOf<paths['/api/sandboxes/{id}']['get']['responses'][200]>;
export type SandboxSize = SandboxData['size'];
export type SandboxStatus = SandboxData['status'];
/** What a sandbox may reach, as the API answers it: `{ egress, allow, deny }`. */
export type NetworkPolicy = SandboxData['network'];

/** `exec` resolves with it: `{ exit_code, stdout, stderr, truncated }`. */
export type ExecResult = DataOf<paths['/api/sandboxes/{id}/exec']['post']['responses'][200]>;

/** `files.write` resolves with it: `{ path, size_bytes }`. */
export type FileWritten = DataOf<paths['/api/sandboxes/{id}/files']['put']['responses'][200]>;

/** `createToken` resolves with it: `{ token, sandbox, abilities, origins, expires_at }`. */
export type TokenGrant = DataOf<paths['/api/sandboxes/{id}/tokens']['post']['responses'][201]>;

/** A template (`Template.data`): `{ id, name, status, source, parent, host, failure, created_at, updated_at }`. */
export type TemplateData = DataOf<paths['/api/templates/{id}']['get']['responses'][200]>;
/** `{ packages, run }`: Debian packages, then commands run as root. */
export type TemplateRecipe = Json<paths['/api/templates']['post']['requestBody']>['recipe'];

export type CreateBody = Json<paths['/api/sandboxes']['post']['requestBody']>;
/** `network` of a create or an update: every field optional (`egress` `open`, lists empty by default). */
export type NetworkOptions = NonNullable<CreateBody['network']>;
export type UpdateBody = Json<NonNullable<paths['/api/sandboxes/{id}']['patch']['requestBody']>>;
export type TokenBody = Json<paths['/api/sandboxes/{id}/tokens']['post']['requestBody']>;
