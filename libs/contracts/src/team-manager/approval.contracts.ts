export const approvalEvents = [] as const;
