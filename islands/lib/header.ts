// Pure rules of the site header, kept apart from React so they can be unit tested.

/** The header turns solid once the page is scrolled more than this many pixels. */
export const SOLID_AFTER_PX = 10;

export function isSolid(scrollY: number, menuOpen: boolean): boolean {
  return menuOpen || scrollY > SOLID_AFTER_PX;
}

export type NavLink = { label: string; href: string };

/** Whether `link` is the active one, given the active href the build chose. */
export function isActive(link: NavLink, active: string): boolean {
  return active !== "" && link.href === active;
}

/** What a key press needs to know about where it happened. */
export type KeyPress = {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  /** The element with focus: a field being typed in keeps its `/`. */
  target: { tagName?: string; isContentEditable?: boolean } | null;
};

/** Whether a key press opens the search: `/` outside a text field, Ctrl-K or ⌘-K anywhere. */
export function opensSearch(press: KeyPress): boolean {
  if (press.altKey) return false;
  if ((press.ctrlKey || press.metaKey) && press.key.toLowerCase() === "k") return true;
  if (press.key !== "/" || press.ctrlKey || press.metaKey) return false;
  const tag = press.target?.tagName?.toUpperCase() ?? "";
  const typing = tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || press.target?.isContentEditable === true;
  return !typing;
}
