import { compileJsonPath, JsonPathSyntaxError } from './jsonpath';

const doc = {
  publisher_id: 'compute.host-1.example',
  payload: {
    host: 'h1',
    image_meta: { 'org.openstack__1__architecture': 'x86_64' },
    glance_metadata: [
      { key: 'image_id', value: 'img-1' },
      { key: 'size', value: '5' },
    ],
    volume_attachment: [{ server_id: 's1' }, { server_id: 's2' }],
    network: { id: 'net-1', name: null },
    id: 'fallback',
    nested: { a: { host: 'deep' } },
  },
};

const values = (path: string, d: unknown = doc) =>
  compileJsonPath(path)
    .find(d)
    .map((m) => m.value);
const paths = (path: string) =>
  compileJsonPath(path)
    .find(doc)
    .map((m) => m.path);

describe('jsonpath-rw-ext dialect', () => {
  it.each([
    ['payload.host', ['h1']],
    ["payload.image_meta.'org.openstack__1__architecture'", ['x86_64']],
    ['payload.glance_metadata[?key=image_id].value', ['img-1']],
    ["payload.glance_metadata[?key='size'].value", ['5']],
    ['payload.glance_metadata[?value=5].key', ['size']],
    ['payload.volume_attachment[0].server_id', ['s1']],
    ['payload.volume_attachment[-1].server_id', ['s2']],
    ['payload.volume_attachment[*].server_id', ['s1', 's2']],
    ['payload.volume_attachment[5].server_id', []],
    ['publisher_id.`split(., 1, 1)`', ['host-1.example']],
    ['publisher_id.`split(., 0, -1)`', ['compute']],
    ['publisher_id.`split(., 9, -1)`', []],
    ['(payload.network.id)|(payload.id)', ['net-1', 'fallback']],
    ['payload..host', ['h1', 'deep']],
    ['payload.missing', []],
    ['payload.volume_attachment.server_id', []],
    ['$.payload.host', ['h1']],
    ['payload.glance_metadata[?key~ima].value', ['img-1']],
    ['payload.glance_metadata.`len`', [2]],
    ['payload.host.`sub(/h/, x)`', ['x1']],
    ['payload.host.`sub(/zz/, x)`', []],
  ])('%s', (path, expected) => {
    expect(values(path)).toEqual(expected);
  });

  it('keeps null matches (the caller drops them) and gives jsonpath-rw paths', () => {
    expect(values('payload.network.name')).toEqual([null]);
    expect(paths('payload.volume_attachment[1].server_id')).toEqual(['payload.volume_attachment.[1].server_id']);
    expect(paths("payload.image_meta.'org.openstack__1__architecture'")).toEqual(['payload.image_meta.org.openstack__1__architecture']);
  });

  it('binds | tighter than . as jsonpath-rw does', () => {
    // payload.(nope|payload).host: `payload.payload` does not exist, so nothing matches.
    expect(values('payload.nope|payload.host')).toEqual([]);
  });

  it.each(['payload.', 'payload[', "payload.'open", 'payload.`nosuch`', 'a & b', 'payload.#'])('refuses %s', (path) => {
    expect(() => compileJsonPath(path)).toThrow(JsonPathSyntaxError);
  });
});
