import type { z } from 'zod';
import type { Article14Stage, Article14Status as Article14StatusSchema } from './article14.schemas.js';

/**
 * CRA Article 14 reporting clocks, as pure functions over a report's facts (docs/workflow.md
 * "Article 14 clocks and filing packs").
 *
 * - Actively exploited vulnerability (14(2)): early warning 24 h and notification 72 h after the
 *   manufacturer became aware; final report 14 days after a corrective or mitigating measure is
 *   available (NOT after awareness: the mistake other tools make).
 * - Severe incident (14(4)): early warning 24 h and notification 72 h after awareness; final report
 *   one month after the incident notification (anchored on when the notification was filed).
 *
 * Hours are exact durations on UTC instants, so daylight-saving changes cannot shift a deadline.
 * "One month" is the same day of the next month in UTC, clamped to that month's last day.
 * A stage whose anchor is not yet known has `dueAt: null`.
 */
export const STAGES = ['early_warning', 'notification', 'final_report'] as const;
export type Stage = (typeof STAGES)[number];

export type Article14Facts = {
  activelyExploited: boolean | null;
  severeIncident: boolean | null;
  awareAt: Date | null;
  fixAvailableAt: Date | null;
  filings: Partial<Record<Stage, { filedAt: Date; filedBy?: string | null; reference?: string | null }>>;
};

export const STAGE_STATES = ['awaiting_anchor', 'open', 'due_soon', 'overdue', 'filed', 'filed_late'] as const;
export type StageState = (typeof STAGE_STATES)[number];

// The wire shapes are the Zod schemas (one source for OpenAPI, MCP and these functions).
export type StageStatus = z.infer<typeof Article14Stage>;
export type Article14Status = z.infer<typeof Article14StatusSchema>;

const HOUR = 3_600_000;
/** A stage due within this window is `due_soon`. */
export const DUE_SOON_MS = 6 * HOUR;

export function addOneMonthUtc(d: Date): Date {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + 1;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, m, Math.min(d.getUTCDate(), lastDay), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()));
}

function stageState(due: Date | null, filed: Date | undefined, now: Date): StageState {
  if (filed) return due && filed.getTime() > due.getTime() ? 'filed_late' : 'filed';
  if (!due) return 'awaiting_anchor';
  const left = due.getTime() - now.getTime();
  return left < 0 ? 'overdue' : left <= DUE_SOON_MS ? 'due_soon' : 'open';
}

type Due = { due: Date | null; anchor: string };

function dueTimes(f: Article14Facts, basis: NonNullable<Article14Status['basis']>): Record<Stage, Due> {
  const aware = f.awareAt;
  const fromAware = (hours: number): Due =>
    aware
      ? { due: new Date(aware.getTime() + hours * HOUR), anchor: `${hours} h after awareness` }
      : { due: null, anchor: 'set awareAt: when the company became aware' };
  let final: Due;
  if (basis === 'actively_exploited_vulnerability') {
    if (!f.fixAvailableAt) final = { due: null, anchor: 'set fixAvailableAt: when a corrective or mitigating measure became available' };
    else if (!aware) final = { due: null, anchor: 'set awareAt: when the company became aware' };
    else {
      // A fix that existed before the company knew cannot start a clock that had not begun.
      const from = Math.max(f.fixAvailableAt.getTime(), aware.getTime());
      final = { due: new Date(from + 14 * 24 * HOUR), anchor: '14 days after a corrective or mitigating measure became available' };
    }
  } else {
    const notified = f.filings.notification?.filedAt;
    final = notified
      ? { due: addOneMonthUtc(notified), anchor: 'one month after the incident notification was filed' }
      : { due: null, anchor: 'file the incident notification first: the final report is due one month after it' };
  }
  return { early_warning: fromAware(24), notification: fromAware(72), final_report: final };
}

export function article14Status(f: Article14Facts, now: Date): Article14Status {
  const basis = f.activelyExploited ? 'actively_exploited_vulnerability' : f.severeIncident ? 'severe_incident' : null;
  if (!basis) {
    const unknown = f.activelyExploited === null && f.severeIncident === null;
    return {
      applies: false,
      basis: null,
      reason: unknown
        ? 'not yet assessed: record whether the vulnerability is actively exploited (Art. 3(42)) or caused a severe incident'
        : 'not actively exploited and no severe incident: Article 14 reporting does not apply (a researcher-reported zero-day without evidence of malicious exploitation is not notifiable)',
      stages: [],
    };
  }
  const due = dueTimes(f, basis);
  return {
    applies: true,
    basis,
    reason:
      basis === 'actively_exploited_vulnerability'
        ? `actively exploited vulnerability: Article 14(2) applies${f.severeIncident ? '; it is also recorded as a severe incident, which Article 14(4) requires reporting separately' : ''}`
        : 'severe incident affecting the security of the product: Article 14(4) applies',
    stages: STAGES.map((stage) => {
      const filing = f.filings[stage];
      const d = due[stage];
      return {
        stage,
        dueAt: d.due?.toISOString() ?? null,
        state: stageState(d.due, filing?.filedAt, now),
        anchor: d.anchor,
        filing: filing ? { filedAt: filing.filedAt.toISOString(), filedBy: filing.filedBy ?? null, reference: filing.reference ?? null } : null,
      };
    }),
  };
}
