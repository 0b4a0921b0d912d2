/** Subscribes `fn` to a NOTIFY channel; answers the unsubscribe. */
export type Listen = (channel: string, fn: (payload: string) => void) => Promise<() => Promise<void>>;

/**
 * The channels that wake the background workers (migration 0020): triggers notify them when a
 * statement queued work (an outbox event or a delivery sent again, an e-mail, a triage job, an SBOM's deferred match), and the
 * notification is delivered when that transaction commits. Every writer wakes the workers this way,
 * so no surface calls a worker by hand, and a write on one instance wakes the workers of all.
 */
export const WAKE_CHANNELS = {
  webhooks: 'cradle_wake_webhooks',
  mail: 'cradle_wake_mail',
  triage: 'cradle_wake_triage',
  sbomMatch: 'cradle_wake_sbom_match',
  /** A coordination notice queued for GitHub (migration 0030). */
  github: 'cradle_wake_github',
} as const;
