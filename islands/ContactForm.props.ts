// The ContactForm island's props, declared once: the build checks every
// `island("ContactForm", …)` call against this.

import { z } from "zod";

export const props = z.strictObject({
  /** Where attachments are uploaded (`site.storage`). */
  storage: z.strictObject({ url: z.string(), anonKey: z.string(), bucket: z.string().min(1) }),
  /** Where messages go (`site.contact.messages`): the console, or the Supabase table. */
  messages: z.enum(["console", "supabase"]),
  /** The form's words in the page's language (`form.*` of content/strings/<code>.yaml). */
  words: z.record(z.string(), z.string()),
  /** The toasts' words (`toast.*`). */
  toastWords: z.record(z.string(), z.string()),
  /** The privacy policy in the page's language. */
  privacyHref: z.string(),
  /** The page's language, for numbers in messages (`5,000`, `5.000`). */
  locale: z.string(),
});

export type ContactFormProps = z.infer<typeof props>;
