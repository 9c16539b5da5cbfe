// The ApplicationForm island's props, declared once: the build checks every
// `island("ApplicationForm", …)` call against this.

import { z } from "zod";

export const props = z.strictObject({
  /** Where CVs are uploaded and applications inserted (`site.storage`'s project). */
  storage: z.strictObject({ url: z.string(), anonKey: z.string() }),
  /** The posting: its id (a folder of the applications bucket), when it closes, from where it takes applicants. */
  job: z.strictObject({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,99}$/),
    title: z.string(),
    closesAt: z.string(),
    applicantsFrom: z.array(z.string().regex(/^[A-Z]{2}$/)),
    /** Closed when the page was built (shown by `site serve` and `--drafts` only). */
    closed: z.boolean(),
  }),
  /** The form's words in the page's language (`apply.*` of content/strings/<code>.yaml). */
  words: z.record(z.string(), z.string()),
  /** The applicants' privacy notice in the page's language. */
  privacyHref: z.string(),
  /** The page's language, for numbers. */
  locale: z.string(),
  /** Every country an applicant may live in, `[code, name]`, named and ordered in the page's language (CLDR's, by the build). */
  countries: z.array(z.tuple([z.string().regex(/^[A-Z]{2}$/), z.string()])),
});

export type ApplicationFormProps = z.infer<typeof props>;
