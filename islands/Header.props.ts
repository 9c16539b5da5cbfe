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
  /** The language switcher: this page in each language (or that language's home). */
  languages: z.strictObject({
    label: z.string(),
    current: z.string(),
    links: z.array(
      z.strictObject({
        code: z.string(),
        name: z.string(),
        dir: z.enum(["ltr", "rtl"]),
        href: z.string(),
        /** The language of the page it leads to (that language's, or the default's home). */
        hreflang: z.string(),
        current: z.boolean(),
        translated: z.boolean(),
      }),
    ),
  }),
  /** The header's own words in the page's language (`header.*` of the strings). */
  words: z.strictObject({
    main: z.string(),
    menu: z.string(),
    search: z.string(),
    language: z.string(),
    languages: z.string(),
  }),
  /** The search dialog's words (`search.*`). */
  searchWords: z.record(z.string(), z.string()),
});

export type HeaderProps = z.infer<typeof props>;
