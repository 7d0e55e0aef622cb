// Traceloop (OpenLLMetry) entities: a task's or workflow's `traceloop.entity.input` and
// `traceloop.entity.output`, JSON text of the function's arguments and result, stored as `{ value }`.

import { type Convention, readValue } from './convention.ts';

export const traceloop: Convention = {
  name: 'Traceloop',
  keyPrefixes: ['traceloop.'],
  readInput: (source) => readValue(source.attributes, 'traceloop.entity.input'),
  readOutput: (source) => readValue(source.attributes, 'traceloop.entity.output'),
};
