// A form field as both forms lay it out: its label (with a star when
// required), the control, a hint and an error, each tied to the control by the
// ids `<id>-hint` and `<id>-error` its `aria-describedby` names.

import type { ReactNode } from "react";

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
