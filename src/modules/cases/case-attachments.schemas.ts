import { z } from 'zod';
import { ATTACHMENT_MAX_BYTES, ATTACHMENT_MEDIA_TYPES, ATTACHMENTS_PER_MESSAGE, CASE_ATTACHMENTS_MAX_BYTES } from './attachment-file.js';

/** A file sent with a message over JSON (REST, MCP): its name and its bytes in base64. */
export const AttachmentInput = z
  .object({
    filename: z.string().min(1, 'give the file a name').max(1000).meta({ description: 'The file name; stored sanitised (no path, no control characters).' }),
    content: z
      .string()
      .max(Math.ceil((ATTACHMENT_MAX_BYTES * 4) / 3) + 4, `each file must be at most ${ATTACHMENT_MAX_BYTES / 1024 / 1024} MiB`)
      .meta({ description: `The bytes, base64 (RFC 4648), at most ${ATTACHMENT_MAX_BYTES} bytes once decoded.` }),
  })
  .strict()
  .meta({ id: 'CaseAttachmentInput' });
export type AttachmentInput = z.infer<typeof AttachmentInput>;

export const AttachmentsInput = z
  .array(AttachmentInput)
  .max(ATTACHMENTS_PER_MESSAGE, `at most ${ATTACHMENTS_PER_MESSAGE} files per message`)
  .optional()
  .meta({
    description: `Files sent with the message: at most ${ATTACHMENTS_PER_MESSAGE}, each at most ${ATTACHMENT_MAX_BYTES / 1024 / 1024} MiB, at most ${CASE_ATTACHMENTS_MAX_BYTES / 1024 / 1024} MiB per case. Seen by whoever sees the message.`,
  });

/** A file of a message as it is listed: never its bytes (download them by id). */
export const CaseAttachment = z
  .object({
    id: z.uuid(),
    messageId: z.uuid(),
    filename: z.string().meta({ description: 'The sanitised name (text from outside: shown escaped, offered as the download name).' }),
    contentType: z.enum(ATTACHMENT_MEDIA_TYPES).meta({ description: 'Sniffed from the bytes, never the declared type; always served as a download.' }),
    size: z.number().int().meta({ description: 'Bytes.' }),
    sha256: z.string().meta({ description: 'SHA-256 of the bytes (hex), to check a downloaded copy.' }),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'CaseAttachment' });
export type CaseAttachmentView = z.infer<typeof CaseAttachment>;

/** One file with its bytes, as an MCP tool answers it (REST answers the bytes themselves). */
export const CaseAttachmentContent = CaseAttachment.extend({ content: z.string().meta({ description: 'The bytes, base64.' }) }).meta({
  id: 'CaseAttachmentContent',
  description: 'REST answers the bytes themselves (`Content-Disposition: attachment`, `Repr-Digest`); MCP answers this object.',
});

/** The download's body: the file's bytes as they were sent. */
export const AttachmentBytes = z
  .string()
  .meta({ id: 'CaseAttachmentBytes', format: 'binary', description: 'The bytes of the file as they were sent, in the media type it was sniffed to be.' });
