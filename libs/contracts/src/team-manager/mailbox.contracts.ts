export const mailboxEvents = [] as const;
