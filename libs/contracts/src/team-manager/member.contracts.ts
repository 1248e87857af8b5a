export const memberEvents = [] as const;
