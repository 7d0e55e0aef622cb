import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import { api, dataOf, inOrgHeader } from '../api/client.ts';
import type { InferenceAnswer, Model } from '../api/types.ts';
import {
  Facts,
  FormError,
  fieldErrors,
  Loaded,
  Page,
  SelectField,
  SubmitButton,
  useFocusOnError,
} from '../components.tsx';
import { count, duration, requestCost } from '../format.ts';
import { useOrg } from '../shell.tsx';
import {
  PreviewFields,
  type PreviewKind,
  previewBody,
  previewFieldNames,
  previewKinds,
  TitleFields,
  titleBody,
  titleFieldNames,
} from './request-fields.tsx';

// Playground (spec 000): pick a model, build a title or a preview request of any kind, send it
// with the session (billed like any other, listed in Requests without a key), and see the answer:
// its text, whether it fell back, the usage, the model's time and what the input tokens cost.

type Endpoint = 'titles' | 'previews';

export function PlaygroundPage() {
  const org = useOrg();
  const models = useQuery({
    queryKey: ['orgs', org.id, 'models'],
    queryFn: async () => (await dataOf(api.GET('/api/inference/models', inOrgHeader(org.id)))).data,
  });
  return (
    <Page title="Playground">
      <p className="lead">
        Try the title and preview endpoints as {org.name}. Requests made here are billed like any other and
        appear under Requests without a key.
      </p>
      <Loaded
        query={models}
        what="the models"
        empty={<p>No model is served here yet: an operator configures them (ORRERY_MODELS).</p>}
      >
        {(data) => <Playground orgId={org.id} models={data} />}
      </Loaded>
    </Page>
  );
}

interface Sent {
  answer: InferenceAnswer;
  price: number;
}

function Playground({ orgId, models }: { orgId: string; models: Model[] }) {
  const form = useRef<HTMLFormElement>(null);
  const [endpoint, setEndpoint] = useState<Endpoint>('titles');
  const [kind, setKind] = useState<PreviewKind>('email');
  const [messages, setMessages] = useState(2);
  const [modelId, setModelId] = useState(models.find((model) => model.deployed)?.id ?? models[0]!.id);
  const model = models.find((candidate) => candidate.id === modelId) ?? models[0]!;
  const send = useMutation({
    mutationFn: async (data: FormData): Promise<Sent> => {
      const options = { params: { path: { model: model.id } }, ...inOrgHeader(orgId) };
      const answer =
        endpoint === 'titles'
          ? await dataOf(
              api.POST('/api/inference/{model}/v1/titles', { ...options, body: titleBody(data, messages) }),
            )
          : await dataOf(
              api.POST('/api/inference/{model}/v1/previews', { ...options, body: previewBody(data, kind) }),
            );
      return { answer, price: model.price.input_cents_per_million_tokens };
    },
  });
  const names = endpoint === 'titles' ? titleFieldNames(messages) : previewFieldNames(kind);
  const errors = fieldErrors(send.error, names);
  useFocusOnError(form, send.error, errors.field);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    send.mutate(new FormData(event.currentTarget));
  }

  return (
    <>
      <form ref={form} onSubmit={submit} noValidate className="card" aria-label="Request">
        <SelectField
          label="Model"
          name="model"
          value={model.id}
          onChange={setModelId}
          error={errors.of('model')}
          hint={`${model.price.input_cents_per_million_tokens}¢ per million input tokens; output is free.`}
        >
          {models.map((candidate) => (
            <option key={candidate.id} value={candidate.id}>
              {candidate.id}
              {candidate.deployed ? '' : ' (not deployed)'}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Endpoint"
          name="endpoint"
          value={endpoint}
          onChange={(value) => setEndpoint(value as Endpoint)}
        >
          <option value="titles">Title of a chat (/v1/titles)</option>
          <option value="previews">Preview of an item (/v1/previews)</option>
        </SelectField>
        {endpoint === 'titles' ? (
          <TitleFields errorOf={errors.of} onCount={setMessages} />
        ) : (
          <>
            <SelectField
              label="Kind"
              name="kind"
              value={kind}
              onChange={(value) => setKind(value as PreviewKind)}
              error={errors.of('kind')}
            >
              {previewKinds.map((option) => (
                <option key={option} value={option}>
                  {option}
                </option>
              ))}
            </SelectField>
            <PreviewFields key={kind} kind={kind} errorOf={errors.of} />
          </>
        )}
        <FormError message={errors.general} />
        <SubmitButton pending={send.isPending} busy="Sending…">
          Send the request
        </SubmitButton>
      </form>
      {send.isSuccess && <Answer sent={send.data} />}
    </>
  );
}

function Answer({ sent: { answer, price } }: { sent: Sent }) {
  return (
    <section className="card" aria-labelledby="answer-title" aria-live="polite">
      <h2 id="answer-title">The answer</h2>
      <p className="answer-text">{answer.text}</p>
      <Facts
        label="About the answer"
        facts={[
          ['Object', answer.object],
          ['Model', answer.model],
          [
            'Fallback',
            answer.fallback
              ? "Yes: the model's line failed a check, so the text was built from the input"
              : "No: the model's own line",
          ],
          ['Input tokens', count(answer.usage.input_tokens)],
          ['Output tokens', count(answer.usage.output_tokens)],
          ["Model's time", duration(answer.latency_ms)],
          ['Cost', requestCost(answer.usage.input_tokens, price)],
        ]}
      />
      <p className="hint">
        Cost: input tokens × {price}¢ per million (output is free). Billing totals the tokens per model and
        UTC day and rounds each day up to a cent once, so a single request is not charged on its own.
      </p>
    </section>
  );
}
