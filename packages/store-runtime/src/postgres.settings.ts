/**
 * The settings every Stratum cluster is written with (postgres.ts writes them into stratum.conf on every
 * start), and how a value is spelled in postgresql.conf.
 */

/** A postgresql.conf value: strings are quoted, booleans become on/off. */
export type PgSetting = string | number | boolean;

/** `v` as postgresql.conf spells it. */
export const confValue = (v: PgSetting) =>
  typeof v === 'boolean' ? (v ? 'on' : 'off') : typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "''")}'`;

/**
 * The settings every cluster gets (before `PostgresOptions.settings`), for a socket directory and port.
 *
 * - shared_preload_libraries, cron.database_name and the documentdb.enable* flags: DocumentDB's own packaging
 *   (packaging/10-preload.sh of its v0.106.0-ferretdb-2.5.0 tag).
 * - documentdb.indexBuildScheduleInSec = 60: Debian 12's pg_cron 1.4 rejects the default '2 seconds' schedule
 *   ("invalid schedule" at CREATE EXTENSION); 60 makes it '* * * * *'. FerretDB builds indexes synchronously.
 * - documentdb.defaultUseCompositeOpClass: indexes as one composite RUM opclass over all their paths
 *   (bson_rum_composite_path_ops) instead of one per path, which made a three-field equality + range query 20x
 *   slower and inserts 2x slower (docs/stores.md, "Indexes").
 * - pg_documentdb_extended_rum, rum_library_load_option, alternate_index_handler_name, enableIndexOrderbyPushdown,
 *   and enableSortbyIdPushDownToPrimaryKey off: indexes of the extended RUM access method, the only one DocumentDB
 *   0.106 lets return rows in index order, so a sorted page with a limit reads a range in order and stops (a
 *   project's newest 100 of 20,000 events: 1 ms instead of 27 ms in PostgreSQL). With the `_id` setting on, a sort
 *   that includes `_id` becomes ORDER BY object_id and no index can serve it (docs/stores.md, "Indexes").
 * - cron.host and documentdb.localhost_connection_string: the connections pg_cron and DocumentDB open to their own
 *   server carry no password; they go to the socket, where `trust` lets them in.
 */
export function postgresSettings(socketDir: string, port: number): Record<string, PgSetting> {
  return {
    listen_addresses: '',
    port,
    unix_socket_directories: socketDir,
    // FerretDB keeps up to 50 per instance (pool_max_conns), and tests and benches run several.
    max_connections: 300,
    shared_preload_libraries: 'pg_cron,pg_documentdb_core,pg_documentdb,pg_documentdb_extended_rum',
    'cron.database_name': 'postgres',
    'cron.host': socketDir,
    'documentdb.localhost_connection_string': `host=${socketDir}`,
    'documentdb.enableCompact': true,
    'documentdb.enableLetAndCollationForQueryMatch': true,
    'documentdb.enableNowSystemVariable': true,
    'documentdb.enableSortbyIdPushDownToPrimaryKey': false,
    'documentdb.enableSchemaValidation': true,
    'documentdb.enableBypassDocumentValidation': true,
    'documentdb.enableUserCrud': true,
    'documentdb.maxUserLimit': 100,
    'documentdb.indexBuildScheduleInSec': 60,
    'documentdb.defaultUseCompositeOpClass': true,
    'documentdb.enableIndexOrderbyPushdown': true,
    'documentdb.rum_library_load_option': 'prefer_documentdb_extended_rum',
    // No unique secondary index can be created while this is set (Stratum has none; `_id` is the primary key).
    'documentdb.alternate_index_handler_name': 'extended_rum',
    // Logs under <data>/log, one file per weekday, overwritten a week later.
    logging_collector: true,
    log_directory: 'log',
    log_filename: 'postgresql-%a.log',
    log_truncate_on_rotation: true,
    log_rotation_age: '1d',
    log_rotation_size: 0,
  };
}
