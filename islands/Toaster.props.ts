// The Toaster island takes no props; the build refuses any it is given.

import { z } from "zod";

export const props = z.strictObject({});
