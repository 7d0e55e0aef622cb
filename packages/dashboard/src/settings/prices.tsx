import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { api, dataOf, inOrgHeader } from '../api/client.ts';
import type { ModelPrice, PriceBody } from '../api/types.ts';
import {
  ConfirmDialog,
  FormError,
  fieldErrors,
  Loaded,
  SubmitButton,
  TextField,
  useFocusOnError,
  When,
} from '../components.tsx';
import { usdPrice } from '../format.ts';
import { useOrg } from '../shell.tsx';
import { orgKeys, usePrices } from './org-queries.ts';

// Settings > Prices (issue 50, item 1): what a generation costs, in USD per million tokens of each
// kind. The prices in effect (the org's own, and each default Orrery ships that it has not
// replaced), a price set for a model (from a row's figures, or from `?model=`, where a span
// without a cost links), and the org's own removed, so the default applies again. Any member
// changes them, with the session, as keys are. A change prices the spans received after it only.

const fields = ['model', 'input', 'output', 'cached_input', 'reasoning'] as const;

const appliesFrom =
  'A price set or removed applies to spans received after the change; spans received before keep the cost they were given.';

/** What the form starts from: a model, and a price's figures when a row is edited. */
type Draft = Pick<ModelPrice, 'model'> &
  Partial<Pick<ModelPrice, 'input' | 'output' | 'cached_input' | 'reasoning'>>;

export function PricesPage() {
  const org = useOrg();
  const prices = usePrices(org.id);
  const [search] = useSearchParams();
  const model = search.get('model');
  // Each start gives a fresh form (its `key`): a row edited twice is prefilled twice.
  const [draft, setDraft] = useState<{ from?: Draft; starts: number }>({
    ...(model ? { from: { model } } : {}),
    starts: 0,
  });
  const [done, setDone] = useState<string>();
  const [removing, setRemoving] = useState<ModelPrice>();
  const client = useQueryClient();
  const startFrom = (from?: Draft) =>
    setDraft(({ starts }) => ({ ...(from ? { from } : {}), starts: starts + 1 }));
  const remove = useMutation({
    mutationFn: (price: ModelPrice) =>
      dataOf(
        api.DELETE('/api/prices/{model}', {
          params: { path: { model: price.model } },
          ...inOrgHeader(org.id),
        }),
      ),
    onSuccess: async (_answer, price) => {
      await client.invalidateQueries({ queryKey: orgKeys.prices(org.id) });
      setRemoving(undefined);
      setDone(
        `Removed your price for ${price.model}: its spans received from now on are priced at Orrery's default, if it has one, and have no cost if not.`,
      );
    },
  });

  return (
    <>
      <p>
        A generation costs its tokens at its model's price, in USD per million tokens of each kind. Your own
        price for a model replaces Orrery's default. {appliesFrom}
      </p>
      <SetPrice
        key={draft.starts}
        orgId={org.id}
        from={draft.from}
        focus={draft.starts > 0}
        onSaved={(price) => {
          setDone(
            `Saved: spans of ${price.model} received from now on cost ${usdPrice(price.input)} per million input tokens and ${usdPrice(price.output)} per million output tokens.`,
          );
          startFrom();
        }}
        onClear={() => startFrom()}
      />
      <p role="status" className="muted">
        {done}
      </p>
      <section aria-labelledby="prices-title">
        <h2 id="prices-title">Prices in effect</h2>
        <Loaded query={prices} what="the prices" empty={<p>No model has a price.</p>}>
          {(data) => (
            <PriceTable
              prices={data}
              onEdit={(price) => {
                setDone(undefined);
                startFrom(price);
              }}
              onRemove={(price) => {
                remove.reset();
                setRemoving(price);
              }}
            />
          )}
        </Loaded>
      </section>
      {removing && (
        <ConfirmDialog
          title={`Remove your price for ${removing.model}?`}
          confirm="Remove the price"
          onConfirm={() => remove.mutate(removing)}
          onCancel={() => setRemoving(undefined)}
          pending={remove.isPending}
          error={remove.error}
        >
          <p>
            Spans of {removing.model} received from now on are priced at Orrery's default for it, if it has
            one, and have no cost if not. Spans received before keep their cost.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}

/** A price field's figure as typed; left empty, none (an optional kind then costs as its whole). */
function figure(form: FormData, name: string): number | undefined {
  const text = String(form.get(name) ?? '').trim();
  return text === '' ? undefined : Number(text);
}

/** A figure of the draft as the field's text: empty where it has none. */
const fieldText = (value: number | null | undefined) =>
  value === null || value === undefined ? '' : String(value);

function SetPrice({
  orgId,
  from,
  focus,
  onSaved,
  onClear,
}: {
  orgId: string;
  from: Draft | undefined;
  /** Whether the form takes the focus as it appears (a row's Edit, not the page's first load). */
  focus: boolean;
  onSaved: (price: ModelPrice) => void;
  onClear: () => void;
}) {
  const client = useQueryClient();
  const form = useRef<HTMLFormElement>(null);
  const set = useMutation({
    mutationFn: ({ model, body }: { model: string; body: PriceBody }) =>
      dataOf(api.PUT('/api/prices/{model}', { params: { path: { model } }, body, ...inOrgHeader(orgId) })),
    onSuccess: async ({ data }) => {
      // The table has the price before the page says it is saved.
      await client.invalidateQueries({ queryKey: orgKeys.prices(orgId) });
      onSaved(data);
    },
  });
  const errors = fieldErrors(set.error, fields);
  useFocusOnError(form, set.error, errors.field);
  useEffect(() => {
    const input = form.current?.elements.namedItem('input');
    if (focus && input instanceof HTMLInputElement) input.focus();
  }, [focus]);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    set.mutate({
      model: String(data.get('model') ?? '').trim(),
      body: {
        // A required figure left empty is sent as null (JSON has no NaN), for the API to name it.
        input: figure(data, 'input') ?? Number.NaN,
        output: figure(data, 'output') ?? Number.NaN,
        cached_input: figure(data, 'cached_input'),
        reasoning: figure(data, 'reasoning'),
      },
    });
  }

  const priceInput = {
    type: 'number',
    inputMode: 'decimal',
    min: 0,
    step: 'any',
    autoComplete: 'off',
  } as const;
  return (
    <section aria-labelledby="set-price-title">
      <h2 id="set-price-title">Set a price</h2>
      <form ref={form} onSubmit={submit} noValidate className="card">
        <TextField
          label="Model"
          name="model"
          required
          autoComplete="off"
          spellCheck={false}
          defaultValue={from?.model}
          hint="As your spans name it, such as “gpt-4o-mini”; matched without regard to case."
          error={errors.of('model')}
        />
        <fieldset>
          <legend>USD per million tokens</legend>
          <div className="price-fields">
            <TextField
              label="Input"
              name="input"
              required
              {...priceInput}
              defaultValue={fieldText(from?.input)}
              error={errors.of('input')}
            />
            <TextField
              label="Output"
              name="output"
              required
              {...priceInput}
              defaultValue={fieldText(from?.output)}
              error={errors.of('output')}
            />
            <TextField
              label="Cached input"
              name="cached_input"
              {...priceInput}
              defaultValue={fieldText(from?.cached_input)}
              hint="Input read from the provider's cache. Left empty: the input price."
              error={errors.of('cached_input')}
            />
            <TextField
              label="Reasoning"
              name="reasoning"
              {...priceInput}
              defaultValue={fieldText(from?.reasoning)}
              hint="Output spent reasoning. Left empty: the output price."
              error={errors.of('reasoning')}
            />
          </div>
        </fieldset>
        <FormError message={errors.general} />
        <div className="actions">
          <SubmitButton pending={set.isPending} busy="Saving…">
            Save the price
          </SubmitButton>
          <button type="button" onClick={onClear}>
            Clear the form
          </button>
        </div>
      </form>
    </section>
  );
}

function PriceTable({
  prices,
  onEdit,
  onRemove,
}: {
  prices: ModelPrice[];
  onEdit: (price: ModelPrice) => void;
  onRemove: (price: ModelPrice) => void;
}) {
  return (
    <div className="table-wrap">
      <table aria-label="Prices">
        <caption className="hint">USD per million tokens</caption>
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col">Input</th>
            <th scope="col">Output</th>
            <th scope="col">Cached input</th>
            <th scope="col">Reasoning</th>
            <th scope="col">Price</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {prices.map((price) => (
            <tr key={price.model}>
              <th scope="row">
                <code>{price.model}</code>
              </th>
              <td className="number">{usdPrice(price.input)}</td>
              <td className="number">{usdPrice(price.output)}</td>
              <td className="number">
                {price.cached_input === null ? (
                  <span className="muted">as input</span>
                ) : (
                  usdPrice(price.cached_input)
                )}
              </td>
              <td className="number">
                {price.reasoning === null ? (
                  <span className="muted">as output</span>
                ) : (
                  usdPrice(price.reasoning)
                )}
              </td>
              <td>
                <PriceSource price={price} />
              </td>
              <td>
                <div className="row-actions">
                  <button
                    type="button"
                    onClick={() => onEdit(price)}
                    aria-label={`Edit the price of ${price.model}`}
                  >
                    Edit
                  </button>
                  {price.source === 'org' && (
                    <button
                      type="button"
                      className="danger"
                      onClick={() => onRemove(price)}
                      aria-label={`Remove your price for ${price.model}`}
                    >
                      Remove
                    </button>
                  )}
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Whose price it is: the org's own (when it was set), or Orrery's default (as of when, from where). */
function PriceSource({ price }: { price: ModelPrice }) {
  if (price.source === 'org')
    return (
      <>
        Your price
        {price.updated_at && (
          <div className="muted small">
            set <When iso={price.updated_at} />
          </div>
        )}
      </>
    );
  return (
    <>
      Default ({price.as_of ? `as of ${price.as_of}, ` : ''}
      {price.source_url ? (
        <a href={price.source_url} rel="noreferrer">
          source
        </a>
      ) : (
        'shipped with Orrery'
      )}
      )
    </>
  );
}
