/**
 * A larger initial old generation for the index's read worker only. V8 takes a new isolate's initial
 * old-generation size from a process-wide flag alone (a Worker's `resourceLimits` has no such limit,
 * and its `execArgv` refuses V8 flags), and reads it when the isolate is made. So the flag is set just
 * before our worker is created and put back as soon as its isolate is up ('online', or its failure):
 * a library user's own Workers, made later, start as Node starts them.
 */
import { setFlagsFromString } from 'node:v8';
import type { Worker } from 'node:worker_threads';

const FLAG = /^--initial[-_]old[-_]space[-_]size(?:=(\d+))?$/;

/**
 * The initial old-space size (MB) the process was started with, on its command line or in
 * NODE_OPTIONS; 0 (V8's own default: start small) when neither names one.
 */
export function processInitialOldSpaceMb(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string | undefined = process.env.NODE_OPTIONS,
): number {
  const args = [...(nodeOptions?.split(/\s+/).filter(Boolean) ?? []), ...execArgv];
  let mb = 0;
  for (let i = 0; i < args.length; i++) {
    const m = FLAG.exec(args[i] ?? '');
    if (!m) continue;
    const value = m[1] ?? args[i + 1];
    if (value !== undefined && /^\d+$/.test(value)) mb = Number(value);
  }
  return mb;
}

/** Workers created and not yet up: the flag goes back when the last of them is. */
let starting = 0;

/** `create()`'s worker, its isolate made with an initial old generation of `mb` MB; no other isolate's. */
export function withInitialOldSpace(mb: number, create: () => Worker): Worker {
  setFlagsFromString(`--initial-old-space-size=${mb}`);
  starting++;
  let worker: Worker;
  try {
    worker = create();
  } catch (error) {
    started();
    throw error;
  }
  const up = () => {
    worker.off('online', up).off('error', up).off('exit', up);
    started();
  };
  worker.on('online', up).on('error', up).on('exit', up);
  return worker;
}

function started(): void {
  starting--;
  if (starting === 0) setFlagsFromString(`--initial-old-space-size=${processInitialOldSpaceMb()}`);
}
