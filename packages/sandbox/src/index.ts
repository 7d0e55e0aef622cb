// @orrery/sandbox: the client for sandboxes and their desktop (spec 002). Runs on Node 24 and in
// evergreen browsers: it imports nothing of Node's.

export type {
  ExecResult,
  FileWritten,
  NetworkOptions,
  NetworkPolicy,
  SandboxData,
  SandboxSize,
  SandboxStatus,
  TemplateData,
  TemplateRecipe,
  TokenGrant,
} from './api-types.js';
export { Client, type ClientOptions } from './client.js';
export type { ApiClient, Fetch } from './connection.js';
export { Desktop } from './desktop.js';
export { desktopLimits } from './desktop-arguments.js';
export type * from './desktop-types.js';
export { ApiError, type ApiErrorFields } from './errors.js';
export type { paths as ApiPaths } from './openapi.generated.js';
export { type CreateTokenOptions, type ExecOptions, Sandbox, type UpdateOptions } from './sandbox.js';
export { SandboxFiles } from './sandbox-files.js';
export type { CreateOptions, ListOptions, Sandboxes } from './sandboxes.js';
export { type CreateTemplateOptions, Template, type Templates, type WaitOptions } from './templates.js';
export type { FromTokenOptions, TokenSession } from './token-session.js';
