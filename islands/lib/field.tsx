// The parts both forms are made of: a field (its label, with a star when
// required, the control, a hint and an error, each tied to the control by the
// ids `<id>-hint` and `<id>-error` its `aria-describedby` names) and Send.

import type { ReactNode, Ref } from "react";
// One module per icon: the package's index would make esbuild read all of them.
import LoaderCircle from "lucide-react/icons/loader-circle";
import Send from "lucide-react/icons/send";

export function Field(props: { id: string; label: string; required?: boolean; error?: string; hint?: string; children: ReactNode }) {
  return (
    <div className={props.error ? "field field--invalid" : "field"}>
      <label htmlFor={props.id} className="field__label">
        {props.label}
        {props.required && <span aria-hidden="true"> *</span>}
      </label>
      {props.children}
      {props.hint && (
        <p id={`${props.id}-hint`} className="field__hint">
          {props.hint}
        </p>
      )}
      {props.error && (
        <p id={`${props.id}-error`} className="field__error">
          {props.error}
        </p>
      )}
    </div>
  );
}

/**
 * Send: greyed out until the form has hydrated (so neither it nor Enter sends
 * the server's HTML anywhere) and while sending, when it says so.
 */
export function SendButton(props: { ref: Ref<HTMLButtonElement>; ready: boolean; sending: boolean; words: { send?: string; sending?: string } }) {
  return (
    <button ref={props.ref} type="submit" className="button button--primary contact-form__submit" disabled={!props.ready || props.sending}>
      {props.sending ? (
        <>
          <LoaderCircle aria-hidden="true" size={18} className="spinner" /> {props.words.sending}
        </>
      ) : (
        <>
          <Send aria-hidden="true" size={18} /> {props.words.send}
        </>
      )}
    </button>
  );
}
