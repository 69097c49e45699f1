export * from './build.js';
export * from './driver.js';
export * from './errors.js';
export * from './resume.js';
export * from './text.js';
export * from './tree.js';
export * from './types.js';
export * from './usage.js';
