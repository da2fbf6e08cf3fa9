import { v7 as uuidv7 } from 'uuid';

/** Time-ordered UUID v7, generated where the record is born (CONTRACT §1). */
export const newId = (): string => uuidv7();
