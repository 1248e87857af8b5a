export const manifestEvents = [] as const;
