import type { UseQueryResult } from '@tanstack/react-query';
import {
  Fragment,
  type InputHTMLAttributes,
  type ReactNode,
  type RefObject,
  type TextareaHTMLAttributes,
  useEffect,
  useId,
  useRef,
  useState,
} from 'react';
import { ApiFailure } from './api/client.ts';
import { messageParts } from './api/message.ts';
import { fieldOf } from './paths.ts';

// The few pieces every page is made of: a page's heading and title, loading and error panels,
// fields that show the API's message next to the field its `param` names, a confirmation dialog,
// and a secret shown once with a copy button. Every message of the API is shown by `Message`.

/** Any error as the API's failure (a bug's error says what it says). */
export function failureFrom(error: unknown): ApiFailure {
  if (error instanceof ApiFailure) return error;
  return new ApiFailure(0, 'unexpected', error instanceof Error ? error.message : String(error));
}

/**
 * An API's message as the page shows it, wherever it does (an error panel, a form's message, a
 * field's): a name between backticks as code, the rest as text; nothing of it is read as HTML.
 */
export function Message({ text }: { text: string }) {
  return messageParts(text).map((part, index) =>
    // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one message, in its order
    part.code ? <code key={index}>{part.text}</code> : <Fragment key={index}>{part.text}</Fragment>,
  );
}

/**
 * A page: its heading and the document's title. After a navigation the heading takes the focus,
 * so a screen reader says where the person now is and Tab goes on from the page's top.
 */
export function Page({ title, children }: { title: string; children: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // A page with a new title (the route's element may be reused, so not only when it mounts): if
  // something of the page before had the focus (the link clicked, which the navigation keeps),
  // it moves here. On a first load it stays at the document's start, before the skip link.
  useEffect(() => {
    document.title = `${title} · Orrery`;
    const active = document.activeElement;
    if (active && active !== document.body) heading.current?.focus();
  }, [title]);
  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        {title}
      </h1>
      {children}
    </>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" role="status">
      Loading {what}…
    </p>
  );
}

export function ErrorPanel({
  error,
  title = 'This could not be loaded',
}: {
  error: unknown;
  title?: string;
}) {
  return (
    <div className="panel panel-error" role="alert">
      <p>
        <strong>{title}</strong>
      </p>
      <p>
        <Message text={failureFrom(error).message} />
      </p>
    </div>
  );
}

/**
 * What a query has answered, once it has: "Loading …" until then, and the error if it failed.
 * With `empty`, an empty list is said in those words instead.
 */
export function Loaded<T>({
  query,
  what,
  empty,
  children,
}: {
  query: UseQueryResult<T>;
  what: string;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading what={what} />;
  const last = query.data;
  if (last === undefined) return <ErrorPanel error={query.error} />;
  if (!query.isError && empty !== undefined && Array.isArray(last) && last.length === 0) return empty;
  // A read again that failed (the API away for a moment, the person removed from the org) says
  // why above what the page last read, rather than taking its place. One shape either way, so
  // React keeps the page's own state (a live screen's last words) when the error comes.
  return (
    <>
      {query.isError && <ErrorPanel error={query.error} />}
      {children(last)}
    </>
  );
}

/** A message for the whole form (an error no field of the form is named by). */
export function FormError({ message }: { message: string | undefined }) {
  if (!message) return null;
  return (
    <p className="form-error" role="alert">
      <Message text={message} />
    </p>
  );
}

/** A form's submit button: while the request runs it says what is happening and cannot be pressed again. */
export function SubmitButton({
  pending,
  busy,
  children,
}: {
  pending: boolean;
  busy: string;
  children: string;
}) {
  return (
    <button type="submit" className="primary" disabled={pending}>
      {pending ? busy : children}
    </button>
  );
}

/**
 * A form's error split as the API said it: the message of the field `param` names (one of
 * `fields`, the form's field names, which are the API's), or a message for the whole form.
 */
export function fieldErrors(error: unknown, fields: readonly string[]) {
  const failure = error ? failureFrom(error) : undefined;
  const field = fieldOf(failure?.param, fields);
  return {
    field,
    of: (name: string) => (failure && field === name ? failure.message : undefined),
    general: failure && !field ? failure.message : undefined,
  };
}

/** Moves the focus to the field an error names, once per error. */
export function useFocusOnError(form: RefObject<HTMLFormElement | null>, error: unknown, field?: string) {
  useEffect(() => {
    if (!error || !field) return;
    const named = form.current?.elements.namedItem(field);
    const element = named instanceof RadioNodeList ? named[0] : named;
    if (element instanceof HTMLElement) element.focus();
  }, [form, error, field]);
}

function describedBy(...ids: (string | false | undefined)[]): string | undefined {
  return ids.filter(Boolean).join(' ') || undefined;
}

type FieldProps = {
  label: string;
  name: string;
  error?: string | undefined;
  hint?: ReactNode;
};

/** What ties a control to its field's label, hint and error. */
type ControlProps = { id: string; 'aria-invalid': true | undefined; 'aria-describedby': string | undefined };

/** A field's frame: its label, a hint, the control, and the API's message for it. */
function Field({
  label,
  error,
  hint,
  control,
}: Omit<FieldProps, 'name'> & { control: (props: ControlProps) => ReactNode }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      )}
      {control({
        id,
        'aria-invalid': error ? true : undefined,
        'aria-describedby': describedBy(hint !== undefined && `${id}-hint`, error && `${id}-error`),
      })}
      {error && (
        <p id={`${id}-error`} className="field-error">
          <Message text={error} />
        </p>
      )}
    </div>
  );
}

export function TextField({
  label,
  name,
  error,
  hint,
  ...input
}: FieldProps & Omit<InputHTMLAttributes<HTMLInputElement>, 'name' | 'id'>) {
  return (
    <Field
      label={label}
      error={error}
      hint={hint}
      control={(control) => <input {...control} name={name} {...input} />}
    />
  );
}

export function TextAreaField({
  label,
  name,
  error,
  hint,
  ...textarea
}: FieldProps & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'name' | 'id'>) {
  return (
    <Field
      label={label}
      error={error}
      hint={hint}
      control={(control) => <textarea {...control} name={name} {...textarea} />}
    />
  );
}

export function SelectField({
  label,
  name,
  error,
  value,
  onChange,
  defaultValue,
  children,
  hint,
}: FieldProps & {
  /** Controlled with `value` and `onChange`, or left to the form with `defaultValue`. */
  value?: string;
  onChange?: (value: string) => void;
  defaultValue?: string;
  children: ReactNode;
}) {
  return (
    <Field
      label={label}
      error={error}
      hint={hint}
      control={(control) => (
        <select
          {...control}
          name={name}
          {...(value === undefined ? { defaultValue } : { value })}
          onChange={(event) => onChange?.(event.target.value)}
        >
          {children}
        </select>
      )}
    />
  );
}

/**
 * Asks before something that cannot be undone, as a modal <dialog>: the browser keeps the focus
 * in it and closes it on Escape. Cancel has the focus first, so Enter does not destroy anything.
 */
export function ConfirmDialog({
  title,
  children,
  confirm,
  onConfirm,
  onCancel,
  pending,
  error,
}: {
  title: string;
  children: ReactNode;
  confirm: string;
  onConfirm: () => void;
  onCancel: () => void;
  pending: boolean;
  error: unknown;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  // Shown as it mounts; unmounting removes it from the page, which ends its modal state.
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    cancel.current?.focus();
  }, []);
  return (
    <dialog ref={dialog} className="dialog" aria-labelledby={titleId} onClose={onCancel}>
      <h2 id={titleId}>{title}</h2>
      {children}
      <FormError message={error ? failureFrom(error).message : undefined} />
      <div className="actions">
        <button type="button" className="danger" onClick={onConfirm} disabled={pending}>
          {pending ? 'Working…' : confirm}
        </button>
        <button type="button" ref={cancel} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}

/**
 * A secret the API answers once (a key, an invitation link): shown in a read-only field with a
 * copy button. Where the browser refuses the clipboard (a page not served over HTTPS or from
 * loopback), the text is selected for the person to copy.
 */
export function CopyField({ label, value, note }: { label: string; value: string; note: ReactNode }) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'copied' | 'refused'>();
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('copied');
    } catch {
      input.current?.select();
      setCopied('refused');
    }
  }
  return (
    <div className="copy-field">
      <label htmlFor={id}>{label}</label>
      <p id={`${id}-note`} className="hint">
        {note}
      </p>
      <div className="copy-row">
        <input
          id={id}
          ref={input}
          readOnly
          value={value}
          aria-describedby={`${id}-note`}
          onFocus={(event) => event.target.select()}
          spellCheck={false}
        />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <p className="copy-status" role="status">
        {copied === 'copied' && 'Copied.'}
        {copied === 'refused' &&
          'The browser refused the clipboard: the text is selected, copy it with Ctrl+C.'}
      </p>
    </div>
  );
}

/** A date as the person's browser writes it, with the exact time for a tooltip. */
export function When({ iso }: { iso: string }) {
  const date = new Date(iso);
  return (
    <time dateTime={iso} title={date.toISOString()}>
      {date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}
    </time>
  );
}

/** A number of the page's answer, with what it is: a term and its value in a <dl>. */
export function Facts({ facts, label }: { facts: [term: ReactNode, value: ReactNode][]; label?: string }) {
  return (
    <dl className="facts" aria-label={label}>
      {facts.map(([term, value], index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list, in a fixed order
        <div key={index}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
