import { useRef, useState, type KeyboardEvent } from "react";
import { nextIndex } from "./lib/roles.ts";

import type { RoleSelectorProps } from "./RoleSelector.props.ts";

/** The C-suite roles as a radio group: exactly one selected, keyboard operable. */
export default function RoleSelector({ roles, initial, label }: RoleSelectorProps) {
  const [selected, setSelected] = useState(roles.includes(initial) ? initial : roles[0]);
  const buttons = useRef<(HTMLButtonElement | null)[]>([]);

  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>, index: number) => {
    const next = nextIndex(event.key, index, roles.length);
    if (next === null) return;
    event.preventDefault();
    setSelected(roles[next]);
    buttons.current[next]?.focus();
  };

  return (
    <div className="roles" role="radiogroup" aria-label={label}>
      {roles.map((role, index) => (
        <button
          key={role}
          ref={(el) => {
            buttons.current[index] = el;
          }}
          type="button"
          role="radio"
          aria-checked={role === selected}
          tabIndex={role === selected ? 0 : -1}
          className={role === selected ? "role role--selected" : "role"}
          onClick={() => setSelected(role)}
          onKeyDown={(event) => onKeyDown(event, index)}
        >
          {role}
        </button>
      ))}
    </div>
  );
}
