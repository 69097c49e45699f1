import { freshSchema } from '../server/pg-helpers.js';
import { describeDriverConformance } from './driver-suite.js';

// The real PostgreSQL, a schema of its own per run (dropped at cleanup).
describeDriverConformance(
  'postgres',
  async () => {
    const db = await freshSchema('tb_conf');
    return { driver: db.store, cleanup: () => db.drop() };
  },
  {
    // what search matches is src/stores/search-text.ts; the PostgreSQL store is yet to follow it
    deviations: {
      'search operators': 'websearch_to_tsquery reads -word as NOT and or as OR (tsQueryText quotes CJK words only)',
      'search columns':
        "search_text is the messages' text only (no thinking, tool input or output), and tools the calls' names only",
    },
  },
);
