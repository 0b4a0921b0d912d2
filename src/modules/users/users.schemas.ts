import type { Role } from './roles.js';
import { z } from 'zod';
import { passwordProblem } from './password-policy.js';

/**
 * A new password under the policy (password-policy.ts): length, blocklist, repetition. The checks
 * that need the person and the company (e-mail name, company name) run where those are known:
 * `assertPasswordPolicy`, or `prepareAdmin` / `hashNewPassword` which call it.
 */
export const Password = z.string().superRefine((pw, ctx) => {
  const problem = passwordProblem(pw);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

export const CreateAdminInput = z.object({
  email: z
    .email('expected an e-mail address')
    .max(254)
    .transform((s) => s.trim()),
  password: Password,
});
export type CreateAdminInput = z.infer<typeof CreateAdminInput>;

/** A user as shown outside the module: never the password hash. */
export type User = { id: string; companyId: string; email: string; role: Role; createdAt: Date };
