import { type ReactNode, useEffect, useRef } from 'react';
import { CopyField } from '../components.tsx';

/**
 * A secret the API has just made (a key, an invitation link), in a panel whose heading takes the
 * focus as it appears, so the person hears it is there; Done puts it away for good.
 */
export function ShownOnce({
  titleId,
  title,
  label,
  value,
  note,
  onDone,
}: {
  titleId: string;
  title: ReactNode;
  label: string;
  value: string;
  note: ReactNode;
  onDone: () => void;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section className="panel panel-secret" aria-labelledby={titleId}>
      <h3 id={titleId} ref={heading} tabIndex={-1}>
        {title}
      </h3>
      <CopyField label={label} value={value} note={note} />
      <button type="button" onClick={onDone}>
        Done, I have copied it
      </button>
    </section>
  );
}
