import { z } from 'zod';

/** Dates leave the API as ISO strings, so clients need no transformer. */
export const zIsoDate = z.date().transform((d) => d.toISOString());
export const zIsoDateOrNull = z
  .date()
  .nullable()
  .transform((d) => (d ? d.toISOString() : null));
export { zExecutor } from '../../protocol/messages.ts';
export const zId = z.uuid();
