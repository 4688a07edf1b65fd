/**
 * serve()'s shutdown, in a real process: a request in flight when SIGTERM arrives is answered, then the process
 * closes its connections and exits 0 (what a Kubernetes rolling update or `podman stop` relies on).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';

/** Starts the fixture server; resolves with its port once it prints it. */
function startSlowServer(): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'fixtures/slow-server.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /port (\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]), output: () => out });
    });
    child.once('exit', (code) => reject(new Error(`server exited early (${code}): ${out}`)));
  });
}

/** GET `path` on a keep-alive agent-less connection; resolves with status, Connection header and body. */
function get(port: number, path: string): Promise<{ status: number; connection: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { connection: 'keep-alive' } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => {
        body += d.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serve() on SIGTERM', () => {
  it('answers the request in flight, refuses new connections, then exits 0', async () => {
    const { child, port, output } = await startSlowServer();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const inFlight = get(port, '/slow');
    // The signal goes once the server has the request.
    while (!output().includes('request started')) await new Promise((r) => setTimeout(r, 10));
    child.kill('SIGTERM');
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ answered: true });
    expect(res.connection).toBe('close');
    expect(await exited).toBe(0);
    expect(output()).toContain('closed');
    await expect(get(port, '/slow')).rejects.toThrow(/ECONNREFUSED/);
  });
});
