/**
 * A TCP forwarder: connections accepted on one address are piped to another. The container test makes the machine's
 * Redis, RabbitMQ and FerretDB (listening on 127.0.0.1 only) reachable from pods at the podman network's gateway
 * address, without making them listen on every interface.
 */
import { connect, createServer, type Socket } from 'node:net';

export interface Endpoint {
  host: string;
  port: number;
}

export interface Forwarder {
  listen: Endpoint;
  target: Endpoint;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Stops listening and closes every open connection. */
  close(): Promise<void>;
}

/**
 * Listens on `listen` and pipes each connection to `target` (a connection to the target that fails closes the
 * accepted one).
 * @throws Error when `listen` cannot be bound (EADDRINUSE, EADDRNOTAVAIL).
 */
export async function forward(listen: Endpoint, target: Endpoint): Promise<Forwarder> {
  const open = new Set<Socket>();
  let accepted = 0;
  const server = createServer((client) => {
    accepted++;
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(listen.port, listen.host, () => {
      server.off('error', fail);
      ok();
    });
  });
  return {
    listen,
    target,
    get accepted() {
      return accepted;
    },
    close: () =>
      new Promise<void>((ok) => {
        for (const s of open) s.destroy();
        server.close(() => ok());
      }),
  };
}
