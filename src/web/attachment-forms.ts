import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ATTACHMENT_MAX_BYTES, ATTACHMENTS_PER_MESSAGE } from '../modules/cases/attachment-file.js';
import { type PreparedAttachment, prepareAttachment } from '../modules/cases/case-attachments.js';

type FormFile = { filename: string; content: Buffer; truncated: boolean };
const FILES = new WeakMap<FastifyRequest, FormFile[]>();

/**
 * Lets the routes of `scope` take a case message form with files (`multipart/form-data`; docs/coordination.md
 * "Attachments"). `gate` runs first, before a byte of a file is read, so that only a caller who may
 * post (a valid participant link, a signed-in member of a role that may) makes the server hold
 * files. The fields arrive as strings (`_csrf` first, as on every form); the files are kept aside
 * with their names (`formAttachments`). A file over the limit is cut there and refused by name, not
 * with a bare 413, so the form comes back with its text; so are files beyond the limit: one more is
 * read to be able to say so, and past that the parser stops reading (its files limit) and the form
 * is answered with the fields and files read until then (the fields come before the files).
 */
export async function acceptAttachmentForms(scope: FastifyInstance, gate: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>): Promise<void> {
  scope.addHook('preValidation', async (req, reply) => (req.isMultipart() ? gate(req, reply) : undefined));
  await scope.register(multipart, {
    throwFileSizeLimit: false,
    limits: { fileSize: ATTACHMENT_MAX_BYTES, files: ATTACHMENTS_PER_MESSAGE + 1, fields: 8, parts: ATTACHMENTS_PER_MESSAGE + 9, fieldSize: 128 * 1024 },
  });
  scope.addHook('preValidation', async (req) => {
    if (!req.isMultipart()) return;
    const fields: Record<string, string | string[]> = {};
    const files: FormFile[] = [];
    try {
      for await (const part of req.parts()) {
        if (part.type === 'file') {
          const content = await part.toBuffer();
          // A form sent with its file field left empty still sends one nameless, empty part.
          if (part.filename !== '' || content.length > 0) files.push({ filename: part.filename, content, truncated: part.file.truncated });
        } else if (typeof part.value === 'string') {
          const had = fields[part.fieldname];
          fields[part.fieldname] = had === undefined ? part.value : [...(Array.isArray(had) ? had : [had]), part.value];
        }
      }
    } catch (e) {
      if (!(e instanceof req.server.multipartErrors.FilesLimitError)) throw e;
    }
    FILES.set(req, files);
    req.body = fields;
  });
}

/** The files a form sent, checked one by one (a refusal names the file and the limit). */
export function formAttachments(req: FastifyRequest): PreparedAttachment[] {
  return (FILES.get(req) ?? []).map((f, i) => prepareAttachment(f.filename, f.content, i, f.truncated));
}
