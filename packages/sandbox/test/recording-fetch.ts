import type { Fetch } from '../src/connection.js';

// A fetch that records each request and answers none: a test asserts that a refused argument
// sent nothing, or what an allowed call would have sent. It never stands in for the API's answer.

export class NotSent extends Error {
  constructor(readonly request: Request) {
    super(`recorded ${request.method} ${request.url}`);
  }
}

export function recordingFetch(): { fetch: Fetch; requests: Request[] } {
  const requests: Request[] = [];
  return {
    requests,
    fetch: async (request) => {
      requests.push(request);
      throw new NotSent(request);
    },
  };
}
