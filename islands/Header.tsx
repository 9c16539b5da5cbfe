import { useEffect, useLayoutEffect, useRef, useState } from "react";
import type { ComponentType, ReactNode } from "react";
// One module per icon: the package's index would make esbuild read all of them.
import Globe from "lucide-react/icons/globe";
import Menu from "lucide-react/icons/menu";
import Search from "lucide-react/icons/search";
import X from "lucide-react/icons/x";
import type { HeaderProps } from "./Header.props.ts";
import { isActive, isSolid, opensSearch } from "./lib/header.ts";
import { typeAhead } from "./lib/search.ts";

type SearchDialogProps = {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  opener: HTMLElement | null;
  /** What the visitor typed while the dialog's code loaded. */
  typed: string;
  words: Record<string, string>;
};

const MENU_ID = "site-menu";

/**
 * The site header. On wide screens the navigation sits in the bar; on small ones
 * it is a `<details>` disclosure, which opens and closes without JavaScript and
 * holds the navigation and the Contact Us button. Before hydration the header
 * scrolls away with the page; once hydrated it is fixed, transparent at the top,
 * solid past 10 px of scroll, and the menu also closes on Escape (focus back on
 * its toggle), on a chosen link and on a click outside it.
 *
 * The search control (and the menu's Search item) is a link to the sitemap page
 * in the server HTML, for visitors without JavaScript. Once the header has
 * hydrated it is a button that opens the search dialog (what assistive technology
 * must announce: it opens no page), as do `/` and Ctrl-K or ⌘-K. The dialog's
 * code is fetched on the first opening.
 */
export default function Header({ brand, links, active, cta, search, languages, words, searchWords }: HeaderProps) {
  const [ready, setReady] = useState(false);
  const [scrollY, setScrollY] = useState(0);
  const [open, setOpen] = useState(false);
  const menu = useRef<HTMLDetailsElement>(null);
  const toggle = useRef<HTMLElement>(null);
  const [searching, setSearching] = useState(false);
  const [SearchDialog, setSearchDialog] = useState<ComponentType<SearchDialogProps> | null>(null);
  // Where focus goes back when the search closes: what opened it, or the menu's
  // toggle when that was the menu's Search (hidden once the menu closes).
  const opener = useRef<HTMLElement | null>(null);
  // Keys typed between opening the search and its dialog's arrival.
  const typed = useRef("");

  const openSearch = () => {
    const focused = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    opener.current = focused && menu.current?.contains(focused) ? toggle.current : focused;
    if (menu.current) menu.current.open = false;
    setOpen(false);
    setSearching(true);
    typed.current = "";
    import("./search/SearchDialog.tsx")
      .then((module) => setSearchDialog(() => module.default))
      // Offline or a stale page: the sitemap lists every page.
      .catch(() => window.location.assign(search.href));
  };

  // A link before hydration, a button after: the switch is a render after the
  // first effect, so hydration itself matches the server HTML.
  const searchControl = (className: string, label: string | undefined, children: ReactNode) =>
    ready ? (
      <button
        type="button"
        className={className}
        aria-label={label}
        aria-haspopup="dialog"
        aria-expanded={searching}
        onClick={openSearch}
      >
        {children}
      </button>
    ) : (
      <a className={className} href={search.href} aria-label={label}>
        {children}
      </a>
    );

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const { key, ctrlKey, metaKey, altKey } = event;
      if (opensSearch({ key, ctrlKey, metaKey, altKey, target: event.target as HTMLElement | null })) {
        event.preventDefault();
        openSearch();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  // The menu may have been opened before hydration (a <details> needs no
  // script): the state starts from the element, or the next render would shut it.
  useLayoutEffect(() => {
    if (menu.current?.open) setOpen(true);
  }, []);

  // While the dialog's code loads, what the visitor types is kept for its field.
  useEffect(() => {
    if (!searching || SearchDialog) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") return setSearching(false);
      const next = typeAhead(typed.current, event);
      if (next === typed.current) return;
      event.preventDefault();
      typed.current = next;
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [searching, SearchDialog]);

  useEffect(() => {
    setReady(true);
    const update = () => setScrollY(window.scrollY);
    update();
    window.addEventListener("scroll", update, { passive: true });
    return () => window.removeEventListener("scroll", update);
  }, []);

  // Listening from the start (not from when the menu opens), so an Escape pressed
  // right after opening is never missed.
  useEffect(() => {
    const isOpen = () => menu.current?.open === true;
    // The element first: its toggle event brings the state along, even when the
    // state has not yet caught up with the opening.
    const close = () => {
      if (menu.current) menu.current.open = false;
      setOpen(false);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape" && isOpen()) {
        close();
        toggle.current?.focus();
      }
    };
    const onClick = (event: MouseEvent) => {
      if (isOpen() && !menu.current?.contains(event.target as Node)) close();
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("click", onClick);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("click", onClick);
    };
  }, []);

  const items = (close: boolean) =>
    links.map((link) => (
      <li key={link.href}>
        <a
          href={link.href}
          aria-current={isActive(link, active) ? "page" : undefined}
          onClick={close ? () => setOpen(false) : undefined}
        >
          {link.label}
        </a>
      </li>
    ));

  return (
    <header
      className="site-header"
      data-ready={ready ? "" : undefined}
      data-solid={isSolid(scrollY, open) ? "" : undefined}
      data-open={open ? "" : undefined}
    >
      <div className="site-header__bar container">
        <a className="site-header__brand" href={brand.href}>
          {brand.label}
        </a>
        <nav className="site-header__nav" aria-label={words.main}>
          <ul>{items(false)}</ul>
        </nav>
        <div className="site-header__actions">
          {searchControl("icon-button site-header__search", search.label, <Search aria-hidden="true" size={20} />)}
          <a className="button button--primary site-header__cta" href={cta.href}>
            {cta.label}
          </a>
          <details
            ref={menu}
            className="site-header__menu"
            open={open}
            onToggle={(event) => setOpen(event.currentTarget.open)}
          >
            <summary ref={toggle} className="icon-button site-header__toggle" aria-label={words.menu} aria-controls={MENU_ID}>
              <Menu aria-hidden="true" size={22} className="site-header__icon-open" />
              <X aria-hidden="true" size={22} className="site-header__icon-close" />
            </summary>
            <nav id={MENU_ID} className="site-header__panel" aria-label={words.main}>
              <ul>{items(true)}</ul>
              {searchControl(
                "site-header__panel-search",
                undefined,
                <>
                  <Search aria-hidden="true" size={18} />
                  {search.label}
                </>,
              )}
              <a className="button button--primary site-header__panel-cta" href={cta.href} onClick={() => setOpen(false)}>
                {cta.label}
              </a>
            </nav>
          </details>
          {/* Last in the bar, so the keyboard meets the menu before it. */}
          {languages.links.length > 1 && <LanguageSwitcher {...languages} words={words} />}
        </div>
      </div>
      {SearchDialog && (
        <SearchDialog open={searching} onOpenChange={setSearching} opener={opener.current} typed={typed.current} words={searchWords} />
      )}
    </header>
  );
}

/**
 * The language switcher: a disclosure (it opens without JavaScript) of real
 * links, each to this page in that language, or to that language's home where
 * the page is not translated. Each name is marked with its language, so a
 * screen reader says it in that language, and `hreflang` tells where it leads.
 */
function LanguageSwitcher({ label, current, links, words }: HeaderProps["languages"] & { words: HeaderProps["words"] }) {
  const here = links.find((link) => link.current);
  return (
    <details className="language-switcher">
      {/* Named by its words, not an aria-label: what it shows (EN) stays part of its name. */}
      <summary className="icon-button language-switcher__toggle">
        <Globe aria-hidden="true" size={20} />
        <span className="language-switcher__code" aria-hidden="true">
          {current.toUpperCase()}
        </span>
        <span className="visually-hidden">{words.languages.replace("{name}", here?.name ?? current)}</span>
      </summary>
      <nav className="language-switcher__panel" aria-label={label}>
        <ul>
          {links.map((link) => (
            <li key={link.code}>
              <a
                href={link.href}
                hrefLang={link.hreflang}
                lang={link.code}
                dir={link.dir}
                aria-current={link.current ? "true" : undefined}
              >
                {link.name}
              </a>
            </li>
          ))}
        </ul>
      </nav>
    </details>
  );
}
