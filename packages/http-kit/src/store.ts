/**
 * The document store connection: one `MongoClient` per process (the driver's rule), short timeouts so an outage is
 * a quick 503 rather than a hang, and automatic reconnection by the driver once the store is back.
 */
import { type Db, MongoClient } from 'mongodb';

export interface Store {
  client: MongoClient;
  db: Db;
  /** Whether the store answers a `ping` within 2 s (health checks; telling "store down" from "request refused"). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Connects to `uri` and selects `database`. The driver retries in the background after a failure, so the process
 * recovers by itself when the store comes back.
 * @throws the driver's error when the store cannot be reached within `serverSelectionTimeoutMS`.
 */
export async function connectStore(uri: string, database: string, serverSelectionTimeoutMS = 2000): Promise<Store> {
  const client = new MongoClient(uri, {
    serverSelectionTimeoutMS,
    connectTimeoutMS: serverSelectionTimeoutMS,
    // Off: a retried write is not what the services rely on (inserts are idempotent on _id, changes are
    // conditional on a revision), and FerretDB does not implement retryable writes' transaction numbers.
    retryWrites: false,
    maxPoolSize: 50,
  });
  await client.connect();
  const db = client.db(database);
  const ping = async () => {
    try {
      await db.command({ ping: 1 }, { timeoutMS: 2000 });
      return true;
    } catch {
      return false;
    }
  };
  return { client, db, ping, close: () => client.close() };
}
