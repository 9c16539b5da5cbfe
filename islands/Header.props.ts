// The Header island's props, declared once: the build checks every
// `island("Header", …)` call against this, and the island takes its type from it.

import { z } from "zod";

const link = z.strictObject({ label: z.string(), href: z.string() });

export const props = z.strictObject({
  brand: link,
  links: z.array(link),
  /** The href of the active link, chosen at build time (`nav_active`); "" for none. */
  active: z.string(),
  cta: link,
  /** The search button: its name, and where it leads before the header hydrates. */
  search: link,
});

export type HeaderProps = z.infer<typeof props>;
