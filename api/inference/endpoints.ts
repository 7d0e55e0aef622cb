import { type DecidedAnswer, decideAnswer } from '../../domain/inference/answer.ts';
import type { Prompt, PromptStyle } from '../../domain/inference/prompt.ts';
import { renderPreview } from '../../domain/inference/render-preview.ts';
import { renderTitle } from '../../domain/inference/render-title.ts';
import { parseInferenceBody, previewRequest, titleRequest } from '../../domain/inference/requests.ts';
import type { InferenceEndpoint } from '../../domain/usage/events.ts';
import { parsedOrRefused } from '../request-validation.ts';

// The two endpoints (spec 000, Endpoints) as a table: the answer's `object`, and how a body
// becomes a prompt and the model's line becomes `text` and `fallback` (the pure core).

export interface PreparedRequest {
  prompt: Prompt;
  answer(modelLine: string | null): DecidedAnswer;
}

interface Endpoint {
  object: 'title' | 'preview';
  /**
   * Parses the body (422 invalid_request with `param` as the spec writes it) and renders it in
   * the style the model takes.
   */
  prepare(body: unknown, style: PromptStyle): PreparedRequest;
}

export const byEndpoint: Record<InferenceEndpoint, Endpoint> = {
  titles: {
    object: 'title',
    prepare(body, style) {
      const request = parsedOrRefused(parseInferenceBody(titleRequest, body));
      return {
        prompt: renderTitle(request, style),
        answer: (modelLine) => decideAnswer({ task: 'title', request, modelLine }),
      };
    },
  },
  previews: {
    object: 'preview',
    prepare(body, style) {
      const request = parsedOrRefused(parseInferenceBody(previewRequest, body));
      return {
        prompt: renderPreview(request, style),
        answer: (modelLine) => decideAnswer({ task: 'preview', request, modelLine }),
      };
    },
  },
};
