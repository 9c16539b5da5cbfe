import * as Dialog from "@radix-ui/react-dialog";
import { useEffect, useRef, useState } from "react";
import type { KeyboardEvent } from "react";
import SearchIcon from "lucide-react/icons/search";
import X from "lucide-react/icons/x";
import { search, type Found } from "../lib/pagefind.ts";
import { excerptParts, nextFocus, resultsSummary } from "../lib/search.ts";

type Props = {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Focus goes back here on closing (Radix would look for a Dialog.Trigger). */
  opener: HTMLElement | null;
  /** What the visitor typed while this dialog's code loaded: the field starts with it. */
  typed?: string;
  /** Its words in the page's language (`search.*` of the strings). */
  words: Record<string, string>;
};

/**
 * The site search: a modal dialog (Radix: focus kept inside, Escape and the
 * close button close it, focus back on what opened it) with a field whose
 * results come as the visitor types. Arrow keys move from the field through the
 * results, Enter follows the focused one. Loaded only when the search is opened.
 *
 * Radix's own overlay locks the page's scrolling with a `<style>` element, which
 * the site's Content Security Policy refuses; the overlay here is a plain one and
 * the page is held still by an attribute the stylesheet reads.
 */
export default function SearchDialog({ open, onOpenChange, opener, typed = "", words }: Props) {
  const locale = document.documentElement.lang || "en";
  const [query, setQuery] = useState(typed);
  // The results and the query they answer, which the field may have moved past.
  const [answer, setAnswer] = useState<{ query: string; results: Found[] }>({ query: "", results: [] });
  const [failed, setFailed] = useState(false);
  const results = answer.results;
  const field = useRef<HTMLInputElement>(null);
  const links = useRef<(HTMLAnchorElement | null)[]>([]);

  useEffect(() => {
    let current = true;
    if (query.trim() === "") {
      setAnswer({ query, results: [] });
      return;
    }
    search(query)
      .then((found) => {
        if (current && found !== null) {
          setAnswer({ query, results: found });
          setFailed(false);
        }
      })
      .catch(() => current && setFailed(true));
    return () => {
      current = false;
    };
  }, [query]);

  useEffect(() => {
    document.documentElement.toggleAttribute("data-search-open", open);
    return () => document.documentElement.removeAttribute("data-search-open");
  }, [open]);

  const move = (from: number, event: KeyboardEvent) => {
    const to = nextFocus(from, event.key, results.length);
    if (to === from && event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    event.preventDefault();
    if (to === -1) field.current?.focus();
    else links.current[to]?.focus();
  };

  const summary = failed
    ? words.unavailable
    : answer.query === query
      ? resultsSummary(query, results.length, words, locale)
      : words.searching;

  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <div className="search-overlay" aria-hidden="true" />
        <Dialog.Content
          className="search-dialog"
          aria-describedby={undefined}
          // Radix would select the field's text, and the next key would replace
          // what was typed while the dialog loaded: the caret goes after it.
          onOpenAutoFocus={(event) => {
            event.preventDefault();
            const input = field.current;
            input?.focus();
            input?.setSelectionRange(input.value.length, input.value.length);
          }}
          onCloseAutoFocus={(event) => {
            event.preventDefault();
            opener?.focus();
          }}
        >
          <div className="search-dialog__bar">
            <SearchIcon aria-hidden="true" size={20} className="search-dialog__icon" />
            <Dialog.Title className="visually-hidden">{words.title}</Dialog.Title>
            <input
              ref={field}
              className="search-dialog__field"
              type="search"
              aria-label={words.title}
              placeholder={words.placeholder}
              autoComplete="off"
              spellCheck={false}
              value={query}
              onChange={(event) => setQuery(event.target.value)}
              onKeyDown={(event) => (event.key === "ArrowDown" ? move(-1, event) : undefined)}
            />
            {query !== "" && (
              <button
                type="button"
                className="search-dialog__clear"
                onClick={() => {
                  setQuery("");
                  field.current?.focus();
                }}
              >
                {words.clear}
              </button>
            )}
            <Dialog.Close className="icon-button search-dialog__close" aria-label={words.close}>
              <X aria-hidden="true" size={20} />
            </Dialog.Close>
          </div>
          <p className="search-dialog__summary" role="status" aria-live="polite">
            {summary}
          </p>
          {results.length > 0 && (
            <ul className="search-dialog__results" aria-label={words.results}>
              {results.map((result, i) => (
                <li key={result.url}>
                  <a
                    ref={(el) => {
                      links.current[i] = el;
                    }}
                    className="search-result"
                    href={result.url}
                    onKeyDown={(event) => move(i, event)}
                  >
                    <span className="search-result__title">{result.title}</span>
                    <span className="search-result__excerpt">
                      {excerptParts(result.excerpt).map((part, j) =>
                        part.marked ? <mark key={j}>{part.text}</mark> : <span key={j}>{part.text}</span>,
                      )}
                    </span>
                  </a>
                </li>
              ))}
            </ul>
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
