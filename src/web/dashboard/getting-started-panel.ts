import type { StartStep } from '../../modules/onboarding/getting-started.js';
import { html, type SafeHtml } from '../html.js';

/** The overview's getting-started checklist: each step ticked from the company's state, each linking to the page that does it. */
export function gettingStartedPanel(steps: readonly StartStep[]): SafeHtml {
  const done = steps.filter((s) => s.done).length;
  if (done === steps.length) return html``;
  return html`<section class="getting-started" aria-labelledby="getting-started-title"><h2 id="getting-started-title">Getting started</h2>
<p class="hint">${done} of ${steps.length} done. Each step is ticked when it is true, whoever did it (here, through the API or an agent).</p>
<ol class="checklist">${steps.map(
    (s) =>
      html`<li id="step-${s.id}" class="${s.done ? 'done' : 'todo'}"><span class="tick" aria-hidden="true">${s.done ? '✓' : '○'}</span> <a href="${s.href}">${s.label}</a><span class="visually-hidden">${s.done ? ' (done)' : ' (to do)'}</span><br><span class="hint">${s.hint}</span></li>`,
  )}</ol></section>`;
}
