import { timestamp } from 'drizzle-orm/pg-core';

/** Every instant is `timestamptz` with milliseconds (the API's ISO 8601 times carry milliseconds). */
export const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });
