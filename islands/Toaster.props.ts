// The Toaster island's props, declared once: the build checks every
// `island("Toaster", …)` call against this.

import { z } from "zod";

export const props = z.strictObject({
  /** The notification region's name and the close button's, in the page's language. */
  words: z.strictObject({ region: z.string(), close: z.string() }),
});

export type ToasterProps = z.infer<typeof props>;
