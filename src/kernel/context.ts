/** Who is acting. Secrets never appear here: an API key is named by its id, a user by theirs. */
export type Actor = { type: 'operator' } | { type: 'system' } | { type: 'public' } | { type: 'user'; id: string } | { type: 'api_key'; id: string };

/** Built by each transport (HTTP auth, MCP, CLI) and handed to every verb. */
export type Context = {
  actor: Actor;
  requestId?: string | undefined;
  ip?: string | undefined;
  userAgent?: string | undefined;
};

export const operatorContext = (): Context => ({ actor: { type: 'operator' } });

/** The actor as one string for records that name who acted (`api_key:<id>`, `user:<id>`, `operator`). */
export const actorName = (ctx: Context): string => ('id' in ctx.actor ? `${ctx.actor.type}:${ctx.actor.id}` : ctx.actor.type);
