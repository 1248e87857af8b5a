export const taskEvents = [] as const;
