// The ContactForm island's props, declared once: the build checks every
// `island("ContactForm", …)` call against this.

import { z } from "zod";

export const props = z.strictObject({
  /** Where attachments are uploaded (`site.storage`). */
  storage: z.strictObject({ url: z.string(), anonKey: z.string(), bucket: z.string().min(1) }),
  /** Where messages go (`site.contact.messages`): the console, or the Supabase table. */
  messages: z.enum(["console", "supabase"]),
});

export type ContactFormProps = z.infer<typeof props>;
