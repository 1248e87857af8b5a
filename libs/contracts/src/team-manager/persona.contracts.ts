export const personaEvents = [] as const;
