// The RoleSelector island's props, declared once: the build checks every
// `island("RoleSelector", …)` call against this.

import { z } from "zod";

export const props = z
  .strictObject({
    roles: z.array(z.string()).min(1),
    /** The role selected at first. */
    initial: z.string(),
    /** The group's accessible name. */
    label: z.string(),
  })
  .refine((p) => p.roles.includes(p.initial), { message: "`initial` must be one of `roles`", path: ["initial"] });

export type RoleSelectorProps = z.infer<typeof props>;
