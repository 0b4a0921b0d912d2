import type { Role } from './roles.js';
import { z } from 'zod';

export const Password = z
  .string()
  .min(1, 'password must not be empty')
  .min(8, 'password must be at least 8 characters')
  .max(1024, 'password must be at most 1024 characters');

export const CreateAdminInput = z.object({
  email: z.email('expected an e-mail address').max(254).transform((s) => s.trim()),
  password: Password,
});
export type CreateAdminInput = z.infer<typeof CreateAdminInput>;

/** A user as shown outside the module: never the password hash. */
export type User = { id: string; companyId: string; email: string; role: Role; createdAt: Date };
