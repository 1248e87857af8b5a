export * from './models';
export * from './effort';
export * from './cache-layers';
export * from './usage';
export * from './errors';
export * from './client';
export * from './pricing';
export * from './price-table-cache';
