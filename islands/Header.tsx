import { useEffect, useRef, useState } from "react";
// One module per icon: the package's index would make esbuild read all of them.
import Menu from "lucide-react/icons/menu";
import Search from "lucide-react/icons/search";
import X from "lucide-react/icons/x";
import type { HeaderProps } from "./Header.props.ts";
import { isActive, isSolid } from "./lib/header.ts";

const MENU_ID = "site-menu";

/**
 * The site header. On wide screens the navigation sits in the bar; on small ones
 * it is a `<details>` disclosure, which opens and closes without JavaScript and
 * holds the navigation and the Contact Us button. Before hydration the header
 * scrolls away with the page; once hydrated it is fixed, transparent at the top,
 * solid past 10 px of scroll, and the menu also closes on Escape (focus back on
 * its toggle), on a chosen link and on a click outside it.
 */
export default function Header({ brand, links, active, cta }: HeaderProps) {
  const [ready, setReady] = useState(false);
  const [scrollY, setScrollY] = useState(0);
  const [open, setOpen] = useState(false);
  const menu = useRef<HTMLDetailsElement>(null);
  const toggle = useRef<HTMLElement>(null);

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
        <nav className="site-header__nav" aria-label="Main">
          <ul>{items(false)}</ul>
        </nav>
        <div className="site-header__actions">
          <button type="button" className="icon-button" aria-label="Search (coming soon)" disabled>
            <Search aria-hidden="true" size={20} />
          </button>
          <a className="button button--primary site-header__cta" href={cta.href}>
            {cta.label}
          </a>
          <details
            ref={menu}
            className="site-header__menu"
            open={open}
            onToggle={(event) => setOpen(event.currentTarget.open)}
          >
            <summary ref={toggle} className="icon-button site-header__toggle" aria-label="Menu" aria-controls={MENU_ID}>
              <Menu aria-hidden="true" size={22} className="site-header__icon-open" />
              <X aria-hidden="true" size={22} className="site-header__icon-close" />
            </summary>
            <nav id={MENU_ID} className="site-header__panel" aria-label="Main">
              <ul>{items(true)}</ul>
              <a className="button button--primary site-header__panel-cta" href={cta.href} onClick={() => setOpen(false)}>
                {cta.label}
              </a>
            </nav>
          </details>
        </div>
      </div>
    </header>
  );
}
