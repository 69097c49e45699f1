import { MemoryStore } from '../../src/stores/memory/index.js';
import { describeDriverConformance } from './driver-suite.js';

describeDriverConformance('memory', async () => ({ driver: new MemoryStore(), cleanup: () => {} }));
