import { ATTACHMENT_MAX_BYTES, ATTACHMENTS_PER_MESSAGE, CASE_ATTACHMENTS_MAX_BYTES } from '../../modules/cases/attachment-file.js';
import { sizeText } from '../../kernel/size-text.js';
import type { CaseAttachmentView } from '../../modules/cases/case-attachments.schemas.js';
import { html, type SafeHtml } from '../html.js';

/**
 * A message's files: each a download link (`{base}/attachments/{id}`) with its size, its type and its
 * SHA-256, so that a reader can check the copy it saved. The name is text from outside: escaped.
 */
export function attachmentList(files: readonly CaseAttachmentView[], base: string): SafeHtml | '' {
  if (files.length === 0) return '';
  return html`<ul class="attachments">${files.map(
    (a) =>
      html`<li data-attachment="${a.id}"><a href="${base}/attachments/${a.id}" download="${a.filename}">${a.filename}</a> <span class="hint">${sizeText(a.size)} · ${a.contentType}</span><br><span class="hint">SHA-256 <code class="digest">${a.sha256}</code></span></li>`,
  )}</ul>`;
}

/** The file field of a message form, with the limits it is held to. */
export function attachmentField(error: string | undefined): SafeHtml {
  return html`<div class="field"><label for="attachments">Files (optional)</label>
<input type="file" id="attachments" name="files" multiple ${error ? html`aria-invalid="true" aria-describedby="attachments-error attachments-hint"` : html`aria-describedby="attachments-hint"`}>
<p class="hint" id="attachments-hint">Up to ${String(ATTACHMENTS_PER_MESSAGE)} files, each at most ${sizeText(ATTACHMENT_MAX_BYTES)}; at most ${sizeText(CASE_ATTACHMENTS_MAX_BYTES)} per case. Files are always downloaded, never opened in the page.</p>${error ? html`<p class="error" id="attachments-error">${error}</p>` : ''}</div>`;
}
