import autocannon from 'autocannon';

// Part 3: throughput at 1 vs 2 replicas

export interface Measurement {
  op: string;
  replicas: 1 | 2;
  round: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  cpu: Record<string, number>;
}

export function cannon(
  origin: string,
  path: string,
  headers: Record<string, string>,
  seconds: number,
  connections: number,
): { instance: autocannon.Instance; done: Promise<autocannon.Result> } {
  let instance: autocannon.Instance | undefined;
  const done = new Promise<autocannon.Result>((ok, fail) => {
    instance = autocannon(
      { url: origin, duration: seconds, connections, pipelining: 1, timeout: 10, requests: [{ method: 'GET', path, headers }] },
      (err, r) => (err ? fail(err) : ok(r)),
    );
  });
  return { instance: instance as autocannon.Instance, done };
}
