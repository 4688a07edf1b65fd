import { confValue, postgresSettings } from './postgres.settings';

describe('postgresql.conf values', () => {
  it('spells booleans on/off, numbers bare and strings quoted with quotes doubled', () => {
    expect(confValue(true)).toBe('on');
    expect(confValue(false)).toBe('off');
    expect(confValue(300)).toBe('300');
    expect(confValue('512MB')).toBe("'512MB'");
    expect(confValue("it's")).toBe("'it''s'");
  });

  it('every cluster listens on its socket only (no TCP) and points its own loopback connections there', () => {
    const s = postgresSettings('/tmp/stratum-pg-x', 5433);
    expect(s).toMatchObject({
      listen_addresses: '',
      port: 5433,
      unix_socket_directories: '/tmp/stratum-pg-x',
      'cron.host': '/tmp/stratum-pg-x',
    });
    expect(s['documentdb.localhost_connection_string']).toBe('host=/tmp/stratum-pg-x');
  });
});
