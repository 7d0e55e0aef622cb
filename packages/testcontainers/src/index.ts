// @orrery/testcontainers: Orrery and its stack for a project's own integration tests.
export { OrreryContainer } from './orrery-container.js';
export { allScopes, type Scope } from './scopes.js';
export { localImages, officialImages, type StackImages } from './stack.js';
export { type OrgKey, StartedOrrery, type WaitOptions, WaitTimedOut } from './started-orrery.js';
