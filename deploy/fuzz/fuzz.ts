import fc from 'fast-check';
import type { Fixtures, FuzzRequest } from './draft';
import { operationArbitraries } from './generate';
import { operationsOf } from './operations';
import { emptyTally, record, type Tally } from './tally';
import { sendRaw, type WireOutcome } from './wire';

export type { Fixtures, FuzzRequest, Who } from './draft';
export { fixturesFor, seedFixtures } from './fixtures';
export { foreignData, shapeProblem } from './oracle';
export { reproText, tallyMarkdown } from './report';
export { foldedCauses, type Repro, type Tally } from './tally';

export interface FuzzTarget {
  host: string;
  port: number;
}

export interface RunOptions {
  target: FuzzTarget;
  /** The gateway's OpenAPI document (fetched from it: `fetchOpenApi`). */
  doc: unknown;
  fixtures: Fixtures;
  seed: number;
  /** Stop after this many requests… */
  requests: number;
  /** …or after this many seconds, whichever comes first. */
  seconds: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Time limit of one request (a request over it is a hang). */
  timeoutMs: number;
  /** Requests generated per batch, spread evenly over the operations (each operation's from its own seed). */
  batchSize?: number;
  /** Only the operations whose key (`METHOD /template`) matches. */
  only?: RegExp;
  /** Called with every answer (e.g. to print them). */
  onAnswer?: (req: FuzzRequest, outcome: WireOutcome) => void;
  /** Called between batches (e.g. to restore fixtures that fuzzed DELETEs removed). */
  betweenBatches?: (tally: Tally) => Promise<void>;
}

/** GETs the gateway's `/openapi.json`. */
export async function fetchOpenApi(target: FuzzTarget): Promise<unknown> {
  const res = await fetch(`http://${target.host}:${target.port}/openapi.json`);
  if (!res.ok) throw new Error(`GET /openapi.json: ${res.status}`);
  return res.json();
}

/**
 * Generates and sends requests until `requests` were sent or `seconds` passed, `concurrency` at a time.
 * @returns the tally (never throws for what the gateway answers).
 */
export async function runFuzz(opts: RunOptions): Promise<Tally> {
  const all = operationsOf(opts.doc);
  const { groups, resolve } = all;
  const operations = all.operations.filter((op) => !opts.only || opts.only.test(op.key));
  const arbs = operations.map((op) => operationArbitraries(op, resolve, opts.fixtures));
  const tally = emptyTally(opts.seed);
  const t0 = performance.now();
  const deadline = t0 + opts.seconds * 1000;
  // Round robin over the operations, so that even a short run sends every operation its share.
  const perOp = Math.max(1, Math.round((opts.batchSize ?? 2 * operations.length) / operations.length));
  for (let batch = 0; tally.requests < opts.requests && performance.now() < deadline; batch++) {
    // Request k of operation i: its (batch·perOp + k + i)-th arbitrary, cycling through its mutation kinds.
    const reqs: FuzzRequest[] = [];
    for (let k = 0; k < perOp; k++) {
      for (const [i, list] of arbs.entries()) {
        const arb = list[(batch * perOp + k + i) % list.length] as fc.Arbitrary<FuzzRequest>;
        reqs.push(fc.sample(arb, { seed: (opts.seed + batch * 7919 + k * 131 + i) | 0, numRuns: 1 })[0] as FuzzRequest);
      }
    }
    reqs.splice(opts.requests - tally.requests);
    let next = 0;
    const worker = async () => {
      while (next < reqs.length && performance.now() < deadline) {
        const i = next++;
        const req = reqs[i] as FuzzRequest;
        const outcome = await sendRaw(opts.target.host, opts.target.port, req.wire, opts.timeoutMs);
        record(tally, `batch ${batch}, request ${i}`, req, outcome, groups, opts.fixtures);
        opts.onAnswer?.(req, outcome);
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency }, worker));
    if (opts.betweenBatches) await opts.betweenBatches(tally);
  }
  tally.seconds = (performance.now() - t0) / 1000;
  return tally;
}

// ---- fixtures ----------------------------------------------------------------------------------------------------
