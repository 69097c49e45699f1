export * from './types.js';
export * from './tree.js';
export * from './errors.js';
export * from './driver.js';
export * from './usage.js';
