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
